/**
 * `npm run bench:forward [-- --events 20000 --rounds 1 --latency-seconds 30 --rate 200 --only drain,latency
 *   --against main]`
 *
 * Issue 35's measurement of forwarding (lib/forward), against a real node:http destination on loopback that
 * answers 200 after `--delay-ms` (20), maxInFlight `--in-flight` (50), mode every, format standard:
 * 1. drain: `--events` settled events forwarded by the real forwarder on a fresh database (the app's pool), against
 *    a bare loop POSTing the same signed envelopes with as many in flight and no database; A B B A per round.
 *    `--against REF`: lib/forward at REF drains too, alternating with this tree's (A B C C B A); or
 *    `--without-index NAME`: this tree's forwarder on a database without that index.
 * 2. latency: the real app process at a steady `--rate` of signed deliveries for `--latency-seconds` (after a 5 s
 *    warm-up): claim → the destination has the forward, and claim → settled.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { Webhook } from "standardwebhooks";
import { createForwarder } from "@/lib/forward/forwarder";
import type { Message } from "@/lib/forward/message";
import { startBenchDestination } from "./forward-destination";
import { forwardLatency, type Percentiles } from "./forward-latency";
import { bareDrain, forwarderAt, forwarderDrain, type DrainRun, type ThroughputSetup } from "./forward-throughput";
import { dropAllCreated, machineLine } from "./worker-db";

const argNum = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : def;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} wants a positive integer`);
  return v;
};
const EVENTS = argNum("events", 20_000);
const ROUNDS = argNum("rounds", 1);
const DELAY_MS = argNum("delay-ms", 20);
const IN_FLIGHT = argNum("in-flight", 50);
const RATE = argNum("rate", 200);
const LATENCY_S = argNum("latency-seconds", 30);
const againstAt = process.argv.indexOf("--against");
/** A git ref whose lib/forward runs beside this tree's, alternating (an A/B of a change to the forwarder). */
const AGAINST = againstAt > 0 ? process.argv[againstAt + 1] : undefined;
const withoutAt = process.argv.indexOf("--without-index");
/** An index whose worth to the forwarder is measured: the "against" variant drains without it. */
const WITHOUT_INDEX = withoutAt > 0 ? process.argv[withoutAt + 1] : undefined;
const onlyAt = process.argv.indexOf("--only");
const ONLY = onlyAt > 0 ? (process.argv[onlyAt + 1] ?? "").split(",") : ["drain", "latency"];
/** Issue 35: the forwarder within 0.7× of a bare loop sending the same requests. */
const TARGET = 0.7;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (n: number) => fmt(n, n < 100 ? 1 : 0);
const pct = (p: Percentiles) => `p50 ${ms(p.p50)} / p99 ${ms(p.p99)} / max ${ms(p.max)} ms (n ${fmt(p.n)})`;
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function line(what: string, r: DrainRun): string {
  const cpu = r.cpu.postgres !== undefined ? `${fmt(r.cpu.node)} + ${fmt(r.cpu.postgres)}` : fmt(r.cpu.node);
  return (
    `${what.padEnd(10)} ${fmt(r.perSecond).padStart(6)} events/s (${fmt(r.events)} in ${fmt(r.seconds, 1)} s); ` +
    `CPU µs/event ${r.cpu.postgres !== undefined ? "node + PG" : "node"} ${cpu}; ` +
    (r.problems.length ? `PROBLEMS: ${r.problems.join("; ")}` : "checks ✓")
  );
}

type Kind = "forwarder" | "against" | "bare";

async function drains(secret: string): Promise<void> {
  const destination = await startBenchDestination({ delayMs: DELAY_MS });
  const s: ThroughputSetup = { events: EVENTS, inFlight: IN_FLIGHT, secret, destination };
  const envelopes: Message[] = [];
  const ratios: Record<Kind, number[]> = { forwarder: [], against: [], bare: [] };
  const older = AGAINST ? await forwarderAt(AGAINST) : WITHOUT_INDEX ? createForwarder : undefined;
  const label: Record<Kind, string> = {
    forwarder: "forwarder",
    against: AGAINST ? `forwarder @ ${AGAINST}` : `forwarder without ${WITHOUT_INDEX}`,
    bare: "bare loop",
  };
  const order: Kind[] = older
    ? ["forwarder", "against", "bare", "bare", "against", "forwarder"]
    : ["forwarder", "bare", "bare", "forwarder"];
  console.log(
    `drain: ${fmt(EVENTS)} forwards, mode every, format standard, maxInFlight ${IN_FLIGHT}; the destination ` +
      `answers 200 after ${DELAY_MS} ms (ceiling ${fmt((1000 / DELAY_MS) * IN_FLIGHT)}/s)`,
  );
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const runs: Record<Kind, DrainRun[]> = { forwarder: [], against: [], bare: [] };
      for (const kind of order) {
        const r =
          kind === "bare"
            ? await bareDrain(s, envelopes)
            : kind === "against"
              ? await forwarderDrain(s, envelopes, older, { dropIndex: WITHOUT_INDEX })
              : await forwarderDrain(s, envelopes);
        if (kind === "forwarder" && destination.first && round === 1 && runs.forwarder.length === 0)
          new Webhook(secret).verify(destination.first.body, destination.first.headers); // throws if wrong
        runs[kind].push(r);
        console.log(`round ${round} ${line(label[kind], r)}`);
        if (r.problems.length) process.exitCode = 1;
      }
      const mean = (k: Kind) => runs[k].reduce((a, r) => a + r.perSecond, 0) / runs[k].length;
      for (const k of older ? (["forwarder", "against"] as const) : (["forwarder"] as const)) {
        ratios[k].push(mean(k) / mean("bare"));
        console.log(
          `round ${round}: ${label[k]} / bare loop = ${fmt(mean(k))} / ${fmt(mean("bare"))} = ${fmt(mean(k) / mean("bare"), 2)}×`,
        );
      }
    }
  } finally {
    await destination.close();
  }
  for (const k of older ? (["forwarder", "against"] as const) : (["forwarder"] as const)) {
    const m = median(ratios[k]);
    console.log(
      `target ${label[k]} ≥ ${TARGET}× the bare loop: rounds ${ratios[k].map((r) => `${fmt(r, 2)}×`).join(", ")} ` +
        `(median ${fmt(m, 2)}×): ${m >= TARGET ? "met" : "MISSED"}`,
    );
  }
  console.log("");
}

async function latency(secret: string): Promise<void> {
  const destination = await startBenchDestination({ delayMs: DELAY_MS, readIds: true });
  try {
    console.log(
      `latency: the app process (lib/cli/receiver.ts, embedded worker and forwarder) at ${RATE} deliveries/s for ` +
        `${LATENCY_S} s after 5 s of warm-up; destination as above`,
    );
    const r = await forwardLatency({ rate: RATE, seconds: LATENCY_S, inFlight: IN_FLIGHT, secret, destination });
    console.log(`claim → forward received: ${pct(r.toForward)}`);
    console.log(`claim → settled:          ${pct(r.toSettled)}`);
    console.log(`delivery answered (from when due): p50 ${ms(r.claim.p50)} / p99 ${ms(r.claim.p99)} ms`);
    console.log(r.problems.length ? `PROBLEMS: ${r.problems.join("; ")}\n` : "checks ✓ (each event forwarded once)\n");
    if (r.problems.length) process.exitCode = 1;
  } finally {
    await destination.close();
  }
}

async function main() {
  process.once("SIGINT", () => void dropAllCreated().finally(() => process.exit(130)));
  console.log(`machine: ${await machineLine()}`);
  console.log(`command: npm run bench:forward -- ${process.argv.slice(2).join(" ") || "(defaults)"}`);
  console.log(`load average before: ${loadavg()} (anything else running skews the figures)\n`);
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  if (ONLY.includes("drain")) await drains(secret);
  if (ONLY.includes("latency")) await latency(secret);
  console.log(`load average after: ${loadavg()}`);
}

try {
  await main();
} finally {
  await dropAllCreated();
}
