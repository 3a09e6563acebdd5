"use client";

import Link from "next/link";
import { useState, useTransition } from "react";
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
    <div className="test-event">
      <button type="button" className="secondary" disabled={pending} onClick={send}>
        {pending ? "Sending…" : "Send a test event"}
      </button>
      {result && !result.ok && (
        <p className="notice error" role="alert">
          {result.error}
        </p>
      )}
      {result?.ok && (
        <div className="test-result" role="status" data-testid="test-result">
          <p className="flush">
            The receiver answered{" "}
            <span className={`badge ${result.data.status === 200 ? "ok" : "dead"}`} data-status={result.data.status}>
              {result.data.status}
            </span>{" "}
            to <code className="break">{result.data.eventType}</code>{" "}
            {result.data.link ? (
              <Link href={result.data.link} className="break">
                Open event {result.data.eventId}
              </Link>
            ) : (
              <span className="muted">(not stored)</span>
            )}
          </p>
          <pre className="raw">{result.data.answer}</pre>
        </div>
      )}
    </div>
  );
}
