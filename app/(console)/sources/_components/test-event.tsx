"use client";

import { SendIcon } from "lucide-react";
import Link from "next/link";
import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { sendTestEventAction, type TestEventView } from "../actions";

/** Ops: a signed sample through the real receiver; shows what the provider would have been answered. */
export function TestEvent({ slug }: { slug: string }) {
  const [pending, startTransition] = useTransition();
  const [result, setResult] = useState<{ ok: true; data: TestEventView } | { ok: false; error: string }>();
  const send = () =>
    startTransition(async () => {
      setResult(undefined);
      setResult(await sendTestEventAction({ slug }));
    });
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div>
        <Button size="sm" variant="outline" disabled={pending} onClick={send}>
          <SendIcon aria-hidden />
          {pending ? "Sending…" : "Send a test event"}
        </Button>
      </div>
      {result && !result.ok && (
        <Alert tone="danger" role="alert">
          {result.error}
        </Alert>
      )}
      {result?.ok && (
        <div className="flex min-w-0 flex-col gap-2" role="status" data-testid="test-result">
          <p className="text-sm break-words">
            The receiver answered{" "}
            <Badge tone={result.data.status === 200 ? "success" : "danger"} data-status={result.data.status}>
              {result.data.status}
            </Badge>{" "}
            to <code className="font-mono text-xs break-all">{result.data.eventType}</code>{" "}
            {result.data.link ? (
              // Only the id may break anywhere: "Open event" wraps between words, never inside one.
              <Link href={result.data.link} className="text-primary hover:underline">
                Open event <span className="break-all">{result.data.eventId}</span>
              </Link>
            ) : (
              <span className="text-muted-foreground">(not stored)</span>
            )}
          </p>
          <pre className="max-h-48 overflow-auto rounded-md border bg-muted/50 p-2 font-mono text-xs break-all whitespace-pre-wrap">
            {result.data.answer}
          </pre>
        </div>
      )}
    </div>
  );
}
