import { CopyButton } from "@/components/copy-button";
import { buttonVariants } from "@/components/ui/button";

/** A value to copy (a secret, a URL) in a box with its copy button; a long one wraps rather than overflows. */
export function CopyableValue({ value, copyLabel, testId }: { value: string; copyLabel: string; testId: string }) {
  return (
    <div className="flex min-w-0 items-start gap-2 rounded-md border bg-muted/50 py-1 pr-1 pl-2.5">
      <code className="min-w-0 flex-1 py-1 font-mono text-xs break-all" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} label={copyLabel} className={buttonVariants({ variant: "outline", size: "sm" })} />
    </div>
  );
}
