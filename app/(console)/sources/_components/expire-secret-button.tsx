"use client";

import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
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
    <div className="flex flex-col items-end gap-1.5">
      {asking ? (
        <div
          className="flex w-56 max-w-full flex-col gap-2 rounded-md border border-destructive/30 bg-destructive/5 p-2 text-left text-xs whitespace-normal"
          role="alertdialog"
          aria-label={`Confirm expiring ${fingerprint}`}
        >
          <p>
            {last
              ? "This is the last active secret: every delivery will be refused (401) until a new one is added. Expire it?"
              : "Deliveries signed with this secret will be refused (401) from now on. Expire it?"}
          </p>
          <div className="flex flex-wrap gap-2">
            <Button size="sm" variant="destructive" disabled={pending} onClick={expire}>
              Expire
            </Button>
            <Button size="sm" variant="outline" disabled={pending} onClick={() => setAsking(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <Button
          size="sm"
          variant="outline"
          className="text-destructive"
          disabled={pending}
          onClick={() => setAsking(true)}
        >
          Expire now
        </Button>
      )}
      {error && (
        <p className="max-w-56 text-xs text-destructive" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
