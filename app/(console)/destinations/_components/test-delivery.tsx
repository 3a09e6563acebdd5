"use client";

import { SendIcon } from "lucide-react";
import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { TestDeliveryResult } from "@/lib/forward/test-delivery";
import { sendTestDeliveryAction } from "../actions";
import { ms } from "./forward-words";

/** Ops: one signed ledger.test envelope, a real request; shows the answer (as text: the destination wrote it). */
export function TestDelivery({ name }: { name: string }) {
  const [pending, startTransition] = useTransition();
  const [result, setResult] = useState<{ ok: true; data: TestDeliveryResult } | { ok: false; error: string }>();
  const send = () =>
    startTransition(async () => {
      setResult(undefined);
      setResult(await sendTestDeliveryAction({ name }));
    });
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div>
        <Button size="sm" variant="outline" className="text-foreground" disabled={pending} onClick={send}>
          <SendIcon aria-hidden />
          {pending ? "Sending…" : "Send a test delivery"}
        </Button>
      </div>
      {result && !result.ok && (
        <Alert tone="danger" role="alert">
          {result.error}
        </Alert>
      )}
      {result?.ok && (
        <div className="flex min-w-0 flex-col gap-2" role="status" data-testid="test-delivery">
          <p className="text-sm break-words">
            {result.data.status !== undefined ? (
              <>
                Answered{" "}
                <Badge tone={result.data.ok ? "success" : "danger"} data-status={result.data.status}>
                  {result.data.status}
                </Badge>{" "}
                in {ms(result.data.durationMs)}
                {!result.data.ok && result.data.error && <>: {result.data.error}</>}
              </>
            ) : (
              <span className="text-destructive">No answer: {result.data.error}</span>
            )}
          </p>
          <p className="text-xs text-muted-foreground">
            webhook-id <code className="font-mono break-all">{result.data.webhookId}</code>
          </p>
          {result.data.excerpt && (
            <pre className="max-h-48 overflow-auto rounded-md border bg-muted/50 p-2 font-mono text-xs break-all whitespace-pre-wrap">
              {result.data.excerpt}
            </pre>
          )}
        </div>
      )}
    </div>
  );
}
