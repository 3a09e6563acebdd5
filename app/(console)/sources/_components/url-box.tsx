import { CopyButton } from "@/components/copy-button";
import { buttonVariants } from "@/components/ui/button";

/** The endpoint to paste into the provider's dashboard, with a copy button; wraps rather than overflows. */
export function UrlBox({ url, label = "Webhook URL" }: { url: string; label?: string }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <span className="text-xs font-medium text-muted-foreground">{label}</span>
      <div className="flex min-w-0 items-start gap-2 rounded-md border bg-muted/50 py-1 pr-1 pl-2.5">
        <code className="min-w-0 flex-1 py-1 font-mono text-xs break-all" data-testid="webhook-url">
          {url}
        </code>
        <CopyButton text={url} label="Copy URL" className={buttonVariants({ variant: "outline", size: "sm" })} />
      </div>
    </div>
  );
}
