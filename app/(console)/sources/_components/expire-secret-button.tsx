"use client";

import { useState, useTransition } from "react";
import { expireSecretAction } from "../actions";

/** Two steps: deliveries signed with this secret are refused (401) from the moment it expires. */
export function ExpireSecretButton({
  slug,
  secretId,
  fingerprint,
  last,
}: {
  slug: string;
  secretId: string;
  fingerprint: string;
  last: boolean;
}) {
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const expire = () =>
    startTransition(async () => {
      const r = await expireSecretAction({ slug, secretId });
      setAsking(false);
      setError(r.ok ? undefined : r.error);
    });
  return (
    <div className="bulk">
      {asking ? (
        <span className="confirm" role="alertdialog" aria-label={`Confirm expiring ${fingerprint}`}>
          {last
            ? "This is the last active secret: every delivery will be refused (401) until a new one is added. Expire it?"
            : "Deliveries signed with this secret will be refused (401) from now on. Expire it?"}
          <button type="button" className="danger" disabled={pending} onClick={expire}>
            Expire
          </button>
          <button type="button" className="secondary" disabled={pending} onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className="danger" disabled={pending} onClick={() => setAsking(true)}>
          Expire now
        </button>
      )}
      {error && (
        <span className="notice error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
