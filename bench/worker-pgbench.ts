/**
 * The reference: one transaction per event, driven by pgbench (C client, prepared statements). Each
 * transaction leases one event with FOR UPDATE SKIP LOCKED and then runs the statements the worker runs
 * for it (lib/handlers/dispatch.ts guard, subscription-store read + upsert, timeline row, settle + attempt),
 * then commits. Same real work, same rows; only the batching differs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ADMIN_URL } from "./worker-db";
import { cpuSeconds, startChild, stopChild, type Child } from "./worker-procs";

const KEY = "source = 'stripe' AND entity_type = 'subscription' AND entity_id = :sub";

export const PGBENCH_SCRIPT = `BEGIN;
WITH due AS (
  SELECT source, event_id FROM webhook_event_state
  WHERE status IN ('claimed', 'failed') AND next_attempt_at <= now()
  ORDER BY next_attempt_at LIMIT 1
  FOR UPDATE SKIP LOCKED
), leased AS (
  UPDATE webhook_event_state e SET status = 'processing', attempts = e.attempts + 1, lease_token = gen_random_uuid(),
    leased_at = now(), leased_by = 'pgbench', lease_expires_at = now() + interval '30 seconds'
  FROM due, webhook_event_body b
  WHERE e.source = due.source AND e.event_id = due.event_id AND b.source = e.source AND b.event_id = e.event_id
  RETURNING e.event_id, e.attempts, e.leased_at, coalesce(b.payload, b.raw_body::jsonb) AS payload
)
SELECT count(*) AS found, coalesce(max(event_id), '') AS eid, coalesce(max(attempts), 0) AS attempt,
  coalesce(max(leased_at)::text, '') AS leased_at,
  coalesce(max(payload #>> '{data,object,id}'), '') AS sub,
  coalesce(max((payload ->> 'created')::bigint), 0) AS ver,
  coalesce(max(payload #>> '{data,object,customer}'), '') AS cus,
  coalesce(max(payload #>> '{data,object,items,data,0,price,id}'), '') AS plan,
  coalesce(max(payload #>> '{data,object,status}'), '') AS st
FROM leased \\gset
\\if :found
WITH up AS (
  INSERT INTO entity_version (source, entity_type, entity_id, version, event_id)
  VALUES ('stripe', 'subscription', :sub, :ver, :eid)
  ON CONFLICT (source, entity_type, entity_id) DO UPDATE
    SET version = excluded.version, event_id = excluded.event_id, updated_at = now()
    WHERE entity_version.version < excluded.version
  RETURNING 1
)
SELECT (EXISTS (SELECT 1 FROM up))::int AS applied,
  coalesce((SELECT version FROM entity_version WHERE ${KEY}), 0) AS cur,
  coalesce((SELECT event_id FROM entity_version WHERE ${KEY}), '') AS cur_event \\gset
\\if :applied
SELECT coalesce(max(customer_id), '') AS b_cus, coalesce(max(plan), '') AS b_plan, coalesce(max(status), '') AS b_status
FROM subscription WHERE source = 'stripe' AND external_id = :sub \\gset
INSERT INTO subscription (source, external_id, customer_id, plan, status, version, updated_by_event, updated_at)
VALUES ('stripe', :sub, :cus, :plan, :st, :ver, :eid, now())
ON CONFLICT (source, external_id) DO UPDATE
  SET customer_id = excluded.customer_id, plan = excluded.plan, status = excluded.status, version = excluded.version,
      updated_by_event = excluded.updated_by_event, updated_at = excluded.updated_at
  WHERE subscription.version < excluded.version;
INSERT INTO entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes)
SELECT 'stripe', 'subscription', :sub::text, :eid::text, :ver::bigint, 'applied',
  coalesce(jsonb_object_agg(f, jsonb_build_object('from', b, 'to', a)) FILTER (WHERE b IS DISTINCT FROM a), '{}'::jsonb)
FROM (VALUES ('customerId', nullif(:b_cus::text, ''), :cus::text), ('plan', nullif(:b_plan::text, ''), :plan::text),
             ('status', nullif(:b_status::text, ''), :st::text)) v(f, b, a);
\\else
INSERT INTO entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, note)
VALUES ('stripe', 'subscription', :sub, :eid, :ver, 'stale', '{}',
  CASE WHEN :cur::bigint = :ver::bigint
    THEN 'tie: version ' || :ver::text || ' equals the applied version (event ' || :cur_event::text || '); equal versions are stale by rule'
    ELSE 'older: version ' || :ver::text || ' < applied version ' || :cur::text || ' (event ' || :cur_event::text || ')' END);
\\endif
WITH settled AS (
  UPDATE webhook_event_state SET status = 'settled', settled_at = now(), last_error = NULL, lease_token = NULL,
    lease_expires_at = NULL, next_trigger = 'auto', next_actor = NULL
  WHERE source = 'stripe' AND event_id = :eid
)
INSERT INTO webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
VALUES ('stripe', :eid, :attempt, 'auto', 'pgbench', :leased_at::timestamptz, clock_timestamp(),
  CASE WHEN :applied::int = 1 THEN 'settled' ELSE 'stale' END);
\\endif
COMMIT;
`;

/**
 * Runs pgbench with `clients` connections until the ledger is drained. pgbench counts transactions per
 * client, and a transaction that finds every remaining event locked by another client leases nothing,
 * so it is given some slack and re-run for whatever is left.
 */
export function runPgbench(
  dbName: string,
  clients: number,
  remaining: () => Promise<number>,
): { done: Promise<void>; current: () => Child | undefined; sampleCpu: () => void; clientCpu: () => number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ledger-bench-"));
  const file = path.join(dir, "one-tx-per-event.sql");
  writeFileSync(file, PGBENCH_SCRIPT);
  const admin = new URL(ADMIN_URL);
  let current: Child | undefined;
  const cpuByPid = new Map<number, number>();
  const done = (async () => {
    try {
      for (let round = 0, left = await remaining(); left > 0 && round < 20; round++, left = await remaining()) {
        const perClient = Math.ceil(left / clients) + Math.ceil((0.02 * left) / clients) + 20;
        const args = [
          "-n",
          "-M",
          "prepared",
          "-f",
          file,
          "-c",
          String(clients),
          "-j",
          String(Math.min(clients, os.availableParallelism())),
          "-t",
          String(perClient),
          "-h",
          admin.hostname,
          "-p",
          admin.port || "5432",
          "-U",
          decodeURIComponent(admin.username) || "postgres",
          dbName,
        ];
        current = startChild(`pgbench -c ${clients}`, "pgbench", args, {
          PGPASSWORD: decodeURIComponent(admin.password),
        });
        const code = await current.exited;
        if (code !== 0) throw new Error(`pgbench exited ${code}:\n${current.output().slice(-3000)}`);
      }
    } finally {
      if (current) await stopChild(current);
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return {
    done,
    current: () => current,
    sampleCpu: () => {
      const pid = current?.child.pid;
      const s = cpuSeconds(pid);
      if (pid !== undefined && s !== undefined) cpuByPid.set(pid, s);
    },
    clientCpu: () => [...cpuByPid.values()].reduce((a, b) => a + b, 0),
  };
}
