import Link from "next/link";
import { CopyButton } from "@/components/copy-button";
import type { IssuedSecret } from "@/lib/sources/manage";
import { UrlBox } from "./url-box";

/**
 * A new secret, shown this once: it lives only in the action's answer (client memory), never in the page
 * the server renders, so a reload or another visit shows its fingerprint only.
 */
export function IssuedSecretBox({ issued, url, title }: { issued: IssuedSecret; url?: string; title: string }) {
  return (
    <section className="panel secret-once" aria-label="New signing secret" data-testid="issued">
      <h2 className="flush">{title}</h2>
      {issued.generated ? (
        <>
          <p>
            <strong>Copy this signing secret now: it will not be shown again.</strong> Paste it into the provider&apos;s
            webhook settings; afterwards the console shows only its fingerprint.
          </p>
          <div className="secret-value">
            <code className="break" data-testid="issued-secret">
              {issued.secret}
            </code>
            <CopyButton text={issued.secret} label="Copy secret" />
          </div>
        </>
      ) : (
        <p>The secret you pasted is stored, sealed; the console shows only its fingerprint from now on.</p>
      )}
      <p className="muted">
        Fingerprint <code data-testid="issued-fingerprint">{issued.fingerprint}</code>
      </p>
      {url && (
        <>
          <UrlBox url={url} label="Paste this URL into the provider" />
          <p className="flush">
            <Link href={`/sources/${encodeURIComponent(issued.slug)}`}>Open the source {issued.slug}</Link>
          </p>
        </>
      )}
    </section>
  );
}
