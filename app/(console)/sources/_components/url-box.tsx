import { CopyButton } from "@/components/copy-button";

/** The endpoint to paste into the provider's dashboard, with a copy button; wraps rather than overflows. */
export function UrlBox({ url, label = "Webhook URL" }: { url: string; label?: string }) {
  return (
    <div className="url-box">
      <span className="muted url-label">{label}</span>
      <code className="break" data-testid="webhook-url">
        {url}
      </code>
      <CopyButton text={url} label="Copy URL" />
    </div>
  );
}
