import Link from "@/components/link";
import { IssuedSecretCard, SecretFingerprint, SecretToCopy } from "@/components/issued-secret-card";
import type { IssuedSecret } from "@/lib/sources/manage";
import { UrlBox } from "./url-box";

/** A source's new secret, shown this once (components/issued-secret-card.tsx). */
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
    <IssuedSecretCard title={title}>
      {issued.generated ? (
        <>
          <p>
            <strong>Copy this signing secret now: it will not be shown again.</strong>{" "}
            {providerIssued
              ? "The provider signs with a secret of its own, not this one: this one signs only the console's " +
                "test events. Add the provider's secret with Rotate secret."
              : "Paste it into the provider's webhook settings; afterwards the console shows only its fingerprint."}
          </p>
          <SecretToCopy secret={issued.secret} />
        </>
      ) : (
        <p>The secret you pasted is stored, sealed; the console shows only its fingerprint from now on.</p>
      )}
      <SecretFingerprint fingerprint={issued.fingerprint} />
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
    </IssuedSecretCard>
  );
}
