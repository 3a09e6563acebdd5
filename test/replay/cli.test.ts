import { spawn, type ChildProcess } from "node:child_process";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getReplayRun, listOrphanedRuns } from "@/lib/replay/runs";
import { setupTestDb, testDatabaseUrl } from "../db";
import { childEnv } from "../tuning";
import { query } from "../worker/helpers";
import { startFakeApi, stripeRoute, type FakeApi } from "./fake-api";
import { seedLedger, SINCE, STRIPE_KEY, storyEvents, UNTIL } from "./helpers";

const { db } = setupTestDb();
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(
  args: string[],
  opts: { npm?: boolean; env?: Record<string, string> } = {},
): { child: ChildProcess; done: Promise<Finished> } {
  const env = childEnv({
    ...process.env,
    DATABASE_URL: testDatabaseUrl(),
    STRIPE_API_BASE: api?.url ?? "http://127.0.0.1:9",
    STRIPE_API_KEY: STRIPE_KEY,
    REPLAY_LEASE_MS: "1000",
    NODE_OPTIONS: "",
    ...opts.env,
  });
  const child = opts.npm
    ? spawn("npm", ["run", "--silent", "replay", "--", ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, ["--import", "tsx", "lib/cli/replay.ts", ...args], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      }); // one process, so SIGKILL kills the replay itself
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

async function seeded(n: number, every: number) {
  const events = storyEvents(n);
  await seedLedger(
    db,
    "stripe",
    events.filter((_, i) => i % every !== 0),
  );
  api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
  return { events, missing: events.filter((_, i) => i % every === 0).length };
}

describe("npm run replay", () => {
  it("[replay] CLI: prints progress on stderr and ends with exactly one JSON line of counts on stdout", async () => {
    const { missing } = await seeded(250, 5);
    const out = await cli(["--source", "stripe", "--since", SINCE, "--until", UNTIL], { npm: true }).done;
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(result).toEqual({
      fetched: 250,
      new: missing,
      duplicates: 250 - missing,
      failed: 0,
      runId: expect.any(Number) as number,
      status: "succeeded",
    });
    expect(out.stderr).toContain(
      `[replay ${String(result.runId)}] page 3: fetched 250 · new ${missing} · duplicates ${250 - missing} · failed 0`,
    );
    expect(out.stderr).not.toContain(STRIPE_KEY);
    expect(await query(db, sql`select actor, status from replay_run`)).toEqual([
      { actor: expect.stringMatching(/^cli:/) as string, status: "succeeded" },
    ]);
  });

  it("[replay] CLI: --dry-run reports what would be new and claims nothing", async () => {
    const { missing } = await seeded(120, 4);
    const out = await cli(["--source", "stripe", "--since", SINCE, "--until", UNTIL, "--dry-run"]).done;
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ fetched: 120, new: missing, duplicates: 120 - missing });
    expect(await query(db, sql`select count(*)::int as n from webhook_event`)).toEqual([{ n: 120 - missing }]);
  });

  it("[replay] CLI: bad arguments exit 2 with a clear message and record nothing", async () => {
    const cases: [string[], string][] = [
      [[], "--source is required"],
      [["--source", "shopify", "--since", SINCE], "--source must be one of stripe, github, paddle"],
      [["--source", "stripe", "--since", "yesterday"], `--since "yesterday" is not a date and time`],
      [["--source", "stripe", "--since", UNTIL, "--until", SINCE], "until must be after since"],
      [["--source", "stripe", "--since", SINCE, "--bogus"], "Unknown option '--bogus'"],
      [["--resume", "abc"], "--resume takes a run id"],
      [["--source", "github", "--since", SINCE], "cannot replay github: GITHUB_TOKEN is not set"],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args).done));
    results.forEach((out, i) => {
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toContain(cases[i]![1]);
      expect(out.stdout).toBe("");
    });
    expect(await query(db, sql`select count(*)::int as n from replay_run`)).toEqual([{ n: 0 }]);
  });

  it("[replay] CLI: a SIGKILLed run is refused to others while leased; --resume finishes, totals right", async () => {
    const { events, missing } = await seeded(500, 4);
    const page3 = events[500 - 200]!.id;
    let hang = true;
    api!.fault = (req) => (hang && req.query.get("starting_after") === page3 ? "hang" : undefined);
    // A lease long enough that the early resume below starts while it still holds, however slow its start.
    const first = cli(["--source", "stripe", "--since", SINCE, "--until", UNTIL], {
      env: { REPLAY_LEASE_MS: "60000" },
    });
    const t0 = Date.now();
    while (!api!.requests.some((r) => r.query.get("starting_after") === page3)) {
      if (Date.now() - t0 > 90_000) throw new Error("the CLI never reached page 3");
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    const [row] = await query<{ id: number; status: string; fetched: number; cursor: string }>(
      db,
      sql`select id::int, status, fetched, cursor from replay_run`,
    );
    expect(row).toMatchObject({ status: "running", fetched: 200, cursor: page3 });
    hang = false;

    const early = await cli(["--resume", String(row!.id)]).done;
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(new RegExp(`replay run ${row!.id} is being driven by cli@`));

    // The killed process's lease runs out (not waited for: its minute passes here).
    await db.execute(sql`update replay_run set lease_expires_at = now() - interval '1 second' where id = ${row!.id}`);
    expect((await listOrphanedRuns(db)).map((r) => r.id)).toEqual([row!.id]);
    const resumed = await cli(["--resume", String(row!.id)]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming from cursor ${page3}`);
    expect(JSON.parse(resumed.stdout)).toEqual({
      fetched: 500,
      new: missing,
      duplicates: 500 - missing,
      failed: 0,
      runId: row!.id,
      status: "succeeded",
    });
    expect(await getReplayRun(db, row!.id)).toMatchObject({ pages: 5, status: "succeeded" });
    expect(await query(db, sql`select count(*)::int as n from webhook_delivery where via = 'replay'`)).toEqual([
      { n: missing },
    ]);
  });
});
