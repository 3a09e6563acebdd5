import { Badge, type BadgeTone } from "./ui/badge";

/** The worker's last word on an event (webhook_event.outcome): what settling it did. */
export type EventOutcome = "settled" | "stale" | "ignored" | "tie" | "failed";
/** A person's decision on a dead event (webhook_event.resolution). */
export type EventResolution = "resolved" | "ignored";

export interface EventStatusInput {
  status: "claimed" | "processing" | "settled" | "failed" | "dead";
  outcome?: EventOutcome | null;
  resolution?: EventResolution | null;
  /** A test event from the console: settled without a handler on purpose. */
  test?: boolean;
}

/** Words over codes: "settled" alone hides a stale or ignored event, so the outcome names it. */
export function describeStatus({ status, outcome, resolution, test }: EventStatusInput): {
  label: string;
  tone: BadgeTone;
  hint: string;
} {
  if (resolution === "resolved")
    return { label: "resolved by hand", tone: "success", hint: "A person resolved this dead event outside the ledger" };
  if (resolution === "ignored")
    return { label: "ignored by hand", tone: "neutral", hint: "A person decided this dead event needs no work" };
  switch (status) {
    case "claimed":
      return { label: "waiting", tone: "info", hint: "Claimed, waiting for a worker" };
    case "processing":
      return { label: "processing", tone: "info", hint: "A worker holds its lease" };
    case "failed":
      return { label: "retrying", tone: "warning", hint: "The last attempt failed; it will be retried" };
    case "dead":
      return {
        label: "dead",
        tone: "danger",
        hint: "Out of attempts, or a failure no retry can fix: waits for a person",
      };
    case "settled":
      if (outcome === "stale")
        return {
          label: "stale",
          tone: "warning",
          hint: "Older than the version already applied: recorded, not applied",
        };
      if (outcome === "tie")
        return { label: "tie", tone: "danger", hint: "Same version as the applied one and nothing could order them" };
      if (outcome === "ignored" && test)
        return {
          label: "test: not applied",
          tone: "neutral",
          hint: "A test event from the console: verified and stored, never applied",
        };
      if (outcome === "ignored")
        return {
          label: "ignored: no handler",
          tone: "neutral",
          hint: "No handler for this event type: nothing to apply",
        };
      return { label: "applied", tone: "success", hint: "Settled: its effects committed" };
  }
}

export function EventStatusBadge(props: EventStatusInput & { className?: string }) {
  const { label, tone, hint } = describeStatus(props);
  return (
    <Badge tone={tone} title={hint} data-status={props.status} className={props.className}>
      {label}
    </Badge>
  );
}
