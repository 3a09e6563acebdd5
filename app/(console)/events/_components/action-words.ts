import { describeStatus, type EventStatusInput } from "@/components/event-status";
import type { ProcessOutcome } from "@/lib/ledger/process";

/** What a requeue leaves the event as, in the words of the page's status badge ("waiting"), not the ledger's code. */
export function requeuedText(status: EventStatusInput["status"]): string {
  return `Requeued: ${describeStatus({ status }).label}${status === "claimed" ? " for a worker" : ""}.`;
}

const AFTER: Record<Exclude<ProcessOutcome, "lease-lost">, { status: EventStatusInput; more?: string }> = {
  settled: { status: { status: "settled", outcome: "settled" } },
  stale: { status: { status: "settled", outcome: "stale" }, more: "recorded and not applied" },
  tie: { status: { status: "settled", outcome: "tie" }, more: "kept for a person to decide" },
  ignored: { status: { status: "settled", outcome: "ignored" } },
  failed: { status: { status: "failed" } },
  dead: { status: { status: "dead" } },
};

/** What one process-now attempt did, in the page's status words, with the error when it failed. */
export function processedText({ outcome, error }: { outcome: ProcessOutcome; error?: string }): string {
  if (outcome === "lease-lost") return "Not processed: another worker holds it.";
  const { status, more } = AFTER[outcome];
  const label = describeStatus(status).label;
  if (outcome === "failed" || outcome === "dead") return `Processed: failed, ${label}${error ? ` (${error})` : ""}.`;
  return `Processed: ${label}${more ? `, ${more}` : ""}.`;
}
