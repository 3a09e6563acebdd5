import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { EVENT_STATUSES } from "@/db/schema/ledger";
import { REFUSAL_REASONS } from "@/db/schema/sources";
import { type DbGaugeReader, type DbGauges } from "./db-gauges";

// A refusal's metric says which of the schema's reasons it was.
const REFUSALS = new Set<string>(REFUSAL_REASONS);
const ANSWERED = new Set(["claimed", "duplicate", "handshake", "unavailable"]);

/** A delivery's `outcome` label: its refusal's reason when a known source refused it, else the receiver's outcome. */
export function deliveryOutcomeLabel(outcome: string, refusal?: string): string {
  if (refusal && REFUSALS.has(refusal)) return `refused_${refusal}`;
  return ANSWERED.has(outcome) ? outcome : "rejected";
}

/** The worker's outcomes (lib/ledger/process.ts) as labels, plus the reaper's expired leases; anything else is "other". */
const ATTEMPT_LABELS = new Set(["settled", "failed", "stale", "ignored", "dead", "lease_lost", "lease_expired"]);
export const attemptOutcomeLabel = (outcome: string): string => {
  const label = outcome.replaceAll("-", "_");
  return ATTEMPT_LABELS.has(label) ? label : "other";
};

export interface LedgerMetrics {
  registry: Registry;
  /** Deliveries answered, by source (known slugs; "unknown" for the rest) and outcome. */
  deliveries: Counter<"source" | "outcome">;
  /** From the body read to the claim's answer (claimed, duplicate, or unavailable). */
  claimDuration: Histogram<"outcome">;
  /** Attempts settled, failed, … by the workers of this process. */
  attempts: Counter<"outcome">;
  /** One lease's processing (apply and settle), per batch (`path` is always `batch`; kept for dashboards). */
  processingDuration: Histogram<"path">;
  /** Pauses a worker's backlog drain took to leave room for the intake's slow claims (lib/metrics/intake-strain.ts). */
  workerYields: Counter;
  /** Replayed events by source and result (new, duplicate, failed). */
  replayEvents: Counter<"source" | "result">;
  /** Forward attempts by destination and outcome (sent, failed, dead, superseded, lease_lost). */
  forwards: Counter<"destination" | "outcome">;
  /** One forward's request, connect to answer, by destination. */
  forwardDuration: Histogram<"destination">;
  /** Where the database gauges come from; the server sets it (this layer has no database of its own). */
  useDatabase(reader: DbGaugeReader | undefined): void;
  /** The text a scrape gets, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const SECONDS_FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const SECONDS_WORK = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createLedgerMetrics(opts: { processDefaults?: boolean } = {}): LedgerMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.processDefaults) collectDefaultMetrics({ register: registry });
  let reader: DbGaugeReader | undefined;

  // Every gauge reads through the reader, whose cache makes one scrape (and a storm of them) one query set.
  const gauges = async (): Promise<DbGauges | undefined> => {
    try {
      return reader ? await reader.read() : undefined;
    } catch {
      return undefined;
    }
  };

  new Gauge({
    name: "webhook_events",
    help: "Ledger events by status (settled from pg_class's estimate past 200,000 rows; see webhook_events_estimated)",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const g = await gauges();
      if (!g) return;
      for (const status of EVENT_STATUSES) this.set({ status }, g.events[status]);
    },
  });
  new Gauge({
    name: "webhook_events_estimated",
    help: "1 when webhook_events is partly the planner's estimate rather than a count",
    registers,
    async collect() {
      const g = await gauges();
      this.set(g?.estimated ? 1 : 0);
    },
  });
  new Gauge({
    name: "webhook_backlog_events",
    help: "Events the workers still owe: claimed, processing or failed (counted through the partial indexes)",
    registers,
    async collect() {
      const g = await gauges();
      if (g) this.set(g.backlog);
    },
  });
  new Gauge({
    name: "webhook_forward_backlog",
    help: "Forwards not yet sent (pending, waiting to retry, in flight), by destination",
    labelNames: ["destination"] as const,
    registers,
    async collect() {
      const g = await gauges();
      if (!g) return;
      this.reset();
      for (const [destination, n] of Object.entries(g.forwardBacklog)) this.set({ destination }, n);
    },
  });
  new Gauge({
    name: "webhook_oldest_pending_seconds",
    help: "Age of the oldest event in the backlog (0 when it is empty)",
    registers,
    async collect() {
      const g = await gauges();
      if (g) this.set(g.oldestPendingSeconds);
    },
  });
  new Gauge({
    name: "webhook_db_gauges_ok",
    help: "1 when the ledger gauges' last query answered; 0 when it failed or timed out (the gauges then keep their last values)",
    registers,
    async collect() {
      this.set((await gauges()) ? 1 : 0);
    },
  });

  return {
    registry,
    deliveries: new Counter({
      name: "webhook_deliveries_total",
      help: "Deliveries answered, by source and outcome (refused_<reason> for a known source's refusals)",
      labelNames: ["source", "outcome"] as const,
      registers,
    }),
    claimDuration: new Histogram({
      name: "webhook_claim_duration_seconds",
      help: "From the delivery's body read to the claim's answer",
      labelNames: ["outcome"] as const,
      buckets: SECONDS_FAST,
      registers,
    }),
    attempts: new Counter({
      name: "webhook_attempts_total",
      help: "Processing attempts by outcome (settled, stale, ignored, failed, dead, lease_lost, lease_expired)",
      labelNames: ["outcome"] as const,
      registers,
    }),
    processingDuration: new Histogram({
      name: "webhook_processing_duration_seconds",
      help: "Applying and settling one leased batch (path: batch)",
      labelNames: ["path"] as const,
      buckets: SECONDS_WORK,
      registers,
    }),
    workerYields: new Counter({
      name: "webhook_worker_yields_total",
      help: "Pauses a backlog drain took because the intake's claims in the same process were slow",
      registers,
    }),
    replayEvents: new Counter({
      name: "webhook_replay_events_total",
      help: "Events replayed from a provider's API, by source and result (new, duplicate, failed)",
      labelNames: ["source", "result"] as const,
      registers,
    }),
    forwards: new Counter({
      name: "webhook_forwards_total",
      help: "Forward attempts to destinations, by destination and outcome",
      labelNames: ["destination", "outcome"] as const,
      registers,
    }),
    forwardDuration: new Histogram({
      name: "webhook_forward_duration_seconds",
      help: "A forward's request to its destination, connect to answer",
      labelNames: ["destination"] as const,
      buckets: SECONDS_WORK,
      registers,
    }),
    useDatabase(next) {
      reader = next;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

const shared = globalThis as unknown as { __ledgerMetrics?: LedgerMetrics };

/**
 * The process's metrics, with prom-client's process defaults. On globalThis: server.ts's modules and
 * Next's bundles (the embedded worker, replays) are separate module graphs in one process, one scrape.
 */
export function getMetrics(): LedgerMetrics {
  shared.__ledgerMetrics ??= createLedgerMetrics({ processDefaults: true });
  return shared.__ledgerMetrics;
}
