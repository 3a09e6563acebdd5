import type { Db } from "@/db/client";
import { createLifecycle } from "@/lib/lifecycle";
import { createLogger, type Logger } from "@/lib/log";
import { createDbGaugeReader, createLedgerMetrics, type DbGaugeReader, type LedgerMetrics } from "@/lib/metrics";
import type { ReceiveAnswer, ReceiverConfig } from "@/lib/receiver/receive";
import { startLedgerServer, type OpsOptions } from "@/lib/server/http";
import { depsFor } from "../receiver/harness";

/** A logger whose every line lands in `lines` (pino writes each line synchronously to the destination). */
export function captureLogger(level = "info"): { logger: Logger; lines: string[]; records: () => LogRecord[] } {
  const lines: string[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as LogRecord) };
}

export type LogRecord = Record<string, unknown> & { msg: string; level: string };

/** `npm start`'s node:http server on loopback, with its own metrics, logger and database; nothing from the environment. */
export async function startOpsServer(
  db: Db,
  over: OpsOptions & { config?: Partial<ReceiverConfig> } = {},
): Promise<{
  url: string;
  metrics: LedgerMetrics;
  lines: string[];
  records: () => LogRecord[];
  work: NonNullable<ReceiveAnswer["work"]>[];
  close: () => Promise<void>;
}> {
  const { config, ...ops } = over;
  const metrics = ops.metrics ?? createLedgerMetrics({ processDefaults: true });
  const captured = captureLogger();
  const work: NonNullable<ReceiveAnswer["work"]>[] = [];
  const lifecycle = createLifecycle({ timeoutMs: 5000 });
  const gauges: DbGaugeReader = ops.gauges ?? createDbGaugeReader({ query: (q) => db.execute(q), ttlMs: 0 });
  const { url } = await startLedgerServer({
    host: "127.0.0.1",
    port: 0,
    lifecycle,
    deps: depsFor(db, { maxBytes: 4096, ...config }),
    getDb: () => Promise.resolve(db),
    logger: captured.logger,
    onWork: (w) => void work.push(w),
    worker: { expected: false, lastTickAt: () => undefined, staleAfterMs: 0 },
    ...ops,
    metrics,
    gauges,
  });
  return {
    url,
    metrics,
    lines: captured.lines,
    records: captured.records,
    work,
    close: async () => {
      await lifecycle.stop("test over");
    },
  };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample with exactly this name and these labels; undefined when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const same = (s: Sample) =>
    Object.keys(s.labels).length === Object.keys(labels).length &&
    Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return samples.find((s) => s.name === name && same(s))?.value;
}

export async function scrape(url: string, token?: string): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, text: await res.text(), headers: res.headers };
}
