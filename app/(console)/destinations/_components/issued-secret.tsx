import { KeyRoundIcon } from "lucide-react";
import { CopyButton } from "@/components/copy-button";
import { Time } from "@/components/time";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { IssuedView } from "../actions";

/**
 * A destination's new signing secret, shown this once: it lives only in the action's answer (client memory),
 * never in a page the server renders, so a reload shows its fingerprint only.
 */
export function IssuedSecretBox({ issued, title }: { issued: IssuedView; title: string }) {
  return (
    <Card aria-label="New signing secret" data-testid="issued" className="border-warning/50">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRoundIcon className="size-4 text-warning" aria-hidden />
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <p>
          <strong>Copy this signing secret now: it will not be shown again.</strong> Your endpoint verifies each
          forward&apos;s <code className="font-mono text-xs">webhook-signature</code> with it (any Standard Webhooks
          library does).
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
        {issued.othersExpireAt && (
          <p>
            The previous secret keeps signing beside it until <Time value={issued.othersExpireAt} /> UTC: every forward
            carries both signatures until then.
          </p>
        )}
        <p className="text-xs text-muted-foreground">
          Fingerprint{" "}
          <code className="font-mono text-foreground" data-testid="issued-fingerprint">
            {issued.fingerprint}
          </code>
        </p>
      </CardContent>
    </Card>
  );
}
