import { KeyRoundIcon } from "lucide-react";
import Link from "next/link";
import { CopyButton } from "@/components/copy-button";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { IssuedSecret } from "@/lib/sources/manage";
import { UrlBox } from "./url-box";

/**
 * A new secret, shown this once: it lives only in the action's answer (client memory), never in the page
 * the server renders, so a reload or another visit shows its fingerprint only.
 */
export function IssuedSecretBox({
  issued,
  url,
  title,
  providerIssued = false,
}: {
  issued: IssuedSecret;
  url?: string;
  title: string;
  /** The provider issues its own secret (Stripe, Shopify, Paddle, Slack): a generated one signs test events only. */
  providerIssued?: boolean;
}) {
  return (
    <Card aria-label="New signing secret" data-testid="issued" className="border-warning/50">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRoundIcon className="size-4 text-warning" aria-hidden />
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        {issued.generated ? (
          <>
            <p>
              <strong>Copy this signing secret now: it will not be shown again.</strong>{" "}
              {providerIssued
                ? "The provider signs with a secret of its own, not this one: this one signs only the console's " +
                  "test events. Add the provider's secret with Rotate secret."
                : "Paste it into the provider's webhook settings; afterwards the console shows only its fingerprint."}
            </p>
            <div className="flex min-w-0 items-start gap-2 rounded-md border bg-muted/50 py-1 pr-1 pl-2.5">
              <code className="min-w-0 flex-1 py-1 font-mono text-xs break-all" data-testid="issued-secret">
                {issued.secret}
              </code>
              <CopyButton
                text={issued.secret}
                label="Copy secret"
                className={buttonVariants({ variant: "outline", size: "sm" })}
              />
            </div>
          </>
        ) : (
          <p>The secret you pasted is stored, sealed; the console shows only its fingerprint from now on.</p>
        )}
        <p className="text-xs text-muted-foreground">
          Fingerprint{" "}
          <code className="font-mono text-foreground" data-testid="issued-fingerprint">
            {issued.fingerprint}
          </code>
        </p>
        {url && (
          <>
            <UrlBox url={url} label="Paste this URL into the provider" />
            <p>
              <Link href={`/sources/${encodeURIComponent(issued.slug)}`} className="text-primary hover:underline">
                Open the source <span className="break-all">{issued.slug}</span>
              </Link>
            </p>
          </>
        )}
      </CardContent>
    </Card>
  );
}
