import { CopyableValue } from "@/components/copyable-value";

/** The endpoint to paste into the provider's dashboard, with a copy button; wraps rather than overflows. */
export function UrlBox({ url, label = "Webhook URL" }: { url: string; label?: string }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <span className="text-xs font-medium text-muted-foreground">{label}</span>
      <CopyableValue value={url} copyLabel="Copy URL" testId="webhook-url" />
    </div>
  );
}
