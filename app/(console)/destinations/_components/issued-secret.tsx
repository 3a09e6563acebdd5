import { IssuedSecretCard, SecretFingerprint, SecretToCopy } from "@/components/issued-secret-card";
import { Time } from "@/components/time";
import type { IssuedView } from "../actions";

/** A destination's new signing secret, shown this once (components/issued-secret-card.tsx). */
export function IssuedSecretBox({ issued, title }: { issued: IssuedView; title: string }) {
  return (
    <IssuedSecretCard title={title}>
      <p>
        <strong>Copy this signing secret now: it will not be shown again.</strong> Your endpoint verifies each
        forward&apos;s <code className="font-mono text-xs">webhook-signature</code> with it (any Standard Webhooks
        library does).
      </p>
      <SecretToCopy secret={issued.secret} />
      {issued.othersExpireAt && (
        <p>
          The previous secret keeps signing beside it until <Time value={issued.othersExpireAt} /> UTC: every forward
          carries both signatures until then.
        </p>
      )}
      <SecretFingerprint fingerprint={issued.fingerprint} />
    </IssuedSecretCard>
  );
}
