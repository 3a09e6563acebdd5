"use client";

import { SendIcon } from "lucide-react";
import Link from "@/components/link";
import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Label, NativeSelect } from "@/components/ui/input";
import { TestBadge } from "@/components/test-badge";
import { sendTestEventAction, type TestEventView } from "../actions";

/**
 * Ops: a signed sample of the chosen type through the real receiver; shows what the provider would have been
 * answered, and that the ledger stored it as a test.
 */
export function TestEvent({ slug, types }: { slug: string; types: readonly string[] }) {
  const [pending, startTransition] = useTransition();
  const [type, setType] = useState(types[0] ?? "");
  const [result, setResult] = useState<{ ok: true; data: TestEventView } | { ok: false; error: string }>();
  const send = () =>
    startTransition(async () => {
      setResult(undefined);
      setResult(await sendTestEventAction({ slug, type }));
    });
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <Label className="min-w-0 flex-1 basis-56">
          Event type
          <NativeSelect value={type} onChange={(e) => setType(e.target.value)} disabled={pending}>
            {types.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </NativeSelect>
        </Label>
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
            )}{" "}
            {result.data.test && <TestBadge />}
          </p>
          <pre className="max-h-48 overflow-auto rounded-md border bg-muted/50 p-2 font-mono text-xs break-all whitespace-pre-wrap">
            {result.data.answer}
          </pre>
        </div>
      )}
    </div>
  );
}
