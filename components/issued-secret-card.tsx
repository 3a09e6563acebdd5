import { KeyRoundIcon } from "lucide-react";
import type { ReactNode } from "react";
import { CopyableValue } from "@/components/copyable-value";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";

/**
 * A secret shown this once (a source's or a destination's): it lives only in the action's answer (client memory),
 * never in a page the server renders, so a reload or another visit shows its fingerprint only.
 */
export function IssuedSecretCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card aria-label="New signing secret" data-testid="issued" className="border-warning/50">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRoundIcon className="size-4 text-warning" aria-hidden />
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">{children}</CardContent>
    </Card>
  );
}

/** The secret itself, with a copy button. */
export function SecretToCopy({ secret }: { secret: string }) {
  return <CopyableValue value={secret} copyLabel="Copy secret" testId="issued-secret" />;
}

/** What the console shows of the secret from now on. */
export function SecretFingerprint({ fingerprint }: { fingerprint: string }) {
  return (
    <p className="text-xs text-muted-foreground">
      Fingerprint{" "}
      <code className="font-mono text-foreground" data-testid="issued-fingerprint">
        {fingerprint}
      </code>
    </p>
  );
}
