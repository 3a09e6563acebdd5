import type { Db } from "@/db/client";
import type { AlertRule } from "@/db/schema/alerts";
import { describeError } from "@/lib/errors";
import { configuredChannels, type AlertChannels } from "./channels";
import type { ListedSource } from "./conditions";
import { deliverDue, type DeliverResult, type DeliverSettings } from "./deliver";
import { evaluateAlerts, recordEvaluationError, type EvaluateResult } from "./evaluate";
import type { EffectiveRule } from "./rules";
import { trimAlerts } from "./trim";

export interface AlertSettings extends DeliverSettings {
  /** Who evaluates, as the console shows it ("embedded@host:pid"). */
  evaluatorId: string;
  evaluateMs: number;
  consoleUrl?: string;
  /** Incidents opened or resolved per rule and evaluation, at most. */
  cap?: number;
  /** ALERT_RESOLVE_AFTER_MINUTES: how long a cleared condition must stay clear to resolve (lib/alerts/evaluate.ts). */
  resolveAfterMs?: number;
}

export interface AlertEvaluatorOptions {
  getDb: () => Promise<Db>;
  settings: AlertSettings;
  channels: AlertChannels;
  defaults: Record<AlertRule, EffectiveRule>;
  /** The sources whose silence counts (lib/sources: declared and the console's). */
  listSources: () => Promise<ListedSource[]>;
  log?: (message: string) => void;
}

export interface TickResult {
  evaluation?: EvaluateResult;
  delivery?: DeliverResult;
  errors: string[];
}

export interface AlertEvaluator {
  /** One evaluation (unless `evaluate: false`) and one pass of the outbox. Never throws. */
  tick(opts?: { evaluate?: boolean }): Promise<TickResult>;
  /** Its own timer: every `evaluateMs`, sooner when a retry falls due. Apart from the worker's loops. */
  start(): void;
  /** Stops the timer, aborts requests in flight (their deliveries retry later) and waits for the tick. */
  stop(): Promise<void>;
}

const TRIM_EVERY_MS = 3600_000;
const STOP_WAIT_MS = 3000;

export function createAlertEvaluator(opts: AlertEvaluatorOptions): AlertEvaluator {
  const s = opts.settings;
  const abort = new AbortController();
  let current: Promise<TickResult> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastEvaluation = 0;
  let lastTrim = 0;
  let lastLogged = "";

  const report = (errors: string[]) => {
    const text = errors.join("; ");
    if (text && text !== lastLogged) opts.log?.(text);
    lastLogged = text;
  };

  const run = async (evaluate: boolean): Promise<TickResult> => {
    const out: TickResult = { errors: [] };
    let db: Db;
    try {
      db = await opts.getDb();
    } catch (err) {
      out.errors.push(`database: ${describeError(err)}`);
      report(out.errors);
      return out;
    }
    if (evaluate) {
      lastEvaluation = Date.now();
      try {
        const sources = await opts.listSources();
        out.evaluation = await evaluateAlerts(db, {
          defaults: opts.defaults,
          channels: configuredChannels(opts.channels),
          sources,
          evaluatorId: s.evaluatorId,
          consoleUrl: s.consoleUrl,
          cap: s.cap,
          resolveAfterMs: s.resolveAfterMs,
        });
      } catch (err) {
        const message = describeError(err);
        out.errors.push(`evaluation: ${message}`);
        await recordEvaluationError(db, s.evaluatorId, message).catch(() => {});
      }
    }
    try {
      out.delivery = await deliverDue(db, opts.channels, s, { signal: abort.signal, log: opts.log });
    } catch (err) {
      out.errors.push(`deliveries: ${describeError(err)}`);
    }
    if (Date.now() - lastTrim > TRIM_EVERY_MS) {
      lastTrim = Date.now();
      await trimAlerts(db).catch((err: unknown) => out.errors.push(`trim: ${describeError(err)}`));
    }
    report(out.errors);
    return out;
  };

  const tick = (o: { evaluate?: boolean } = {}) => {
    current ??= run(o.evaluate ?? true).finally(() => {
      current = undefined;
    });
    return current;
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void loop();
    }, ms);
    timer.unref?.();
  };

  const loop = async () => {
    if (stopped) return;
    const result = await tick({ evaluate: Date.now() - lastEvaluation >= s.evaluateMs });
    const untilEvaluation = Math.max(0, lastEvaluation + s.evaluateMs - Date.now());
    schedule(Math.max(250, Math.min(untilEvaluation, result.delivery?.nextDueMs ?? Infinity)));
  };

  return {
    tick,
    start() {
      if (timer || stopped) return;
      // A moment after start-up, not during it.
      schedule(Math.min(1000, s.evaluateMs));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      abort.abort(new Error("shutting down"));
      // Requests end at the abort; only a stalled database could hold the tick, and shutdown does not wait on it.
      let cap: NodeJS.Timeout | undefined;
      await Promise.race([
        current?.catch(() => {}),
        new Promise<void>((resolve) => (cap = setTimeout(resolve, STOP_WAIT_MS))),
      ]).finally(() => clearTimeout(cap));
    },
  };
}
