import { existsSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startThrowawayCluster, type Cluster } from "./pg-cluster";
import { freePort, spawnProcess, waitForHttp } from "./processes";
import { startTcpProxy } from "./tcp-proxy";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "pending" if `p` has not settled within `ms`; the promise keeps running. */
function within<T>(p: Promise<T>, ms: number): Promise<T | "pending"> {
  return Promise.race([p, sleep(ms).then(() => "pending" as const)]);
}

function client(url: string, max = 1) {
  return postgres(url, { max, onnotice: () => {}, connect_timeout: 10 });
}

function errorCode(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "ok",
    (e: Error & { code?: string }) => e.code ?? e.message,
  );
}

/** Until another backend is running `select pg_sleep(…)`: the in-flight query has reached the server. */
async function untilSleeping(url: string, pid?: number): Promise<void> {
  const admin = client(url);
  try {
    await expect
      .poll(
        async () =>
          (
            await admin<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
              where state = 'active' and query like ${"%pg_sleep%"} and pid <> pg_backend_pid()
              and (${pid ?? null}::int is null or pid = ${pid ?? null}::int)`
          )[0]?.n,
        { timeout: 5000, interval: 20 },
      )
      .toBe(1);
  } finally {
    await admin.end();
  }
}

let cluster: Cluster;
let initMs = 0;

beforeAll(async () => {
  const started = Date.now();
  cluster = await startThrowawayCluster();
  initMs = Date.now() - started;
});

afterAll(async () => {
  await cluster?.destroy();
});

describe("throwaway PostgreSQL cluster", () => {
  it("[faults] a throwaway cluster starts on its own port, answers queries and creates databases", async () => {
    expect(initMs).toBeGreaterThan(0);
    expect(cluster.port).not.toBe(5432);
    expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
    const sql = client(cluster.url);
    try {
      const [row] = await sql<
        { fsync: string; port: string }[]
      >`select current_setting('fsync') as fsync, current_setting('port') as port`;
      expect(row).toEqual({ fsync: "off", port: String(cluster.port) });
    } finally {
      await sql.end();
    }

    const dbUrl = await cluster.createDatabase("faults_created");
    expect(dbUrl).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/faults_created`);
    const db = client(dbUrl);
    try {
      const [row] = await db<{ db: string }[]>`select current_database() as db`;
      expect(row?.db).toBe("faults_created");
    } finally {
      await db.end();
    }
  });

  it("[faults] restart('immediate') crashes the server mid-query and it comes back with committed rows intact", async () => {
    const sql = client(cluster.url);
    try {
      await sql`create table crash_probe (id int primary key)`;
      await sql`insert into crash_probe values (1)`;
      const inflight = errorCode(sql`select pg_sleep(10)`);
      await untilSleeping(cluster.url);

      const t = await cluster.restart("immediate");
      expect(t.stoppedAt).toBeGreaterThanOrEqual(t.stopRequestedAt);
      expect(t.acceptingAt).toBeGreaterThan(t.stoppedAt);
      expect(await inflight).toBe("CONNECTION_CLOSED");
      expect(cluster.log()).toMatch(/database system was interrupted|not properly shut down/);

      // postgres.js reopens the pool's connection on the next query.
      const rows = await sql<{ id: number }[]>`select id from crash_probe`;
      expect(rows.map((r) => r.id)).toEqual([1]);
    } finally {
      await sql.end();
    }
  });

  it("[faults] restart('fast', downMs) refuses connections while down, then answers again", async () => {
    const sql = client(cluster.url);
    try {
      await sql`select 1`;
      const inflight = errorCode(sql`select pg_sleep(10)`);
      await untilSleeping(cluster.url);

      const restarting = cluster.restart("fast", 1500);
      let refused = "";
      const deadline = Date.now() + 1400;
      while (!refused && Date.now() < deadline) {
        // fetch_types: false, see waitUntilAccepting: this probe may connect while the server goes down.
        const probe = postgres(cluster.url, { max: 1, connect_timeout: 1, fetch_types: false, onnotice: () => {} });
        const code = await errorCode(probe`select 1`);
        await probe.end({ timeout: 1 });
        if (code === "ECONNREFUSED") refused = code;
        else await sleep(50);
      }
      expect(refused).toBe("ECONNREFUSED");

      const t = await restarting;
      expect(t.startRequestedAt - t.stoppedAt).toBeGreaterThanOrEqual(1500);
      expect(await inflight).toBe("CONNECTION_CLOSED");
      // After a fast shutdown hit a busy connection, postgres.js 3.4.9 hands the server's 57P01 to the next query.
      expect(["ok", "57P01"]).toContain(await errorCode(sql`select 1`));
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await sql.end();
    }
  });

  it("[faults] maxConnections caps the server and extraConf reaches postgresql.conf; destroy is idempotent", async () => {
    const small = await startThrowawayCluster({
      maxConnections: 10,
      extraConf: { statement_timeout: "1234ms", cluster_name: "it's faults" },
    });
    try {
      const sql = client(small.url, 10);
      const extra = client(small.url);
      try {
        const [row] = await sql<{ max: string; timeout: string; app: string }[]>`
          select current_setting('max_connections') as max, current_setting('statement_timeout') as timeout, current_setting('cluster_name') as app`;
        expect(row).toEqual({ max: "10", timeout: "1234ms", app: "it's faults" });

        // Superusers may use the reserved slots too, so postgres gets all 10 and the 11th is turned away.
        const held = await Promise.all(Array.from({ length: 10 }, () => sql.reserve()));
        expect(await errorCode(extra`select 1`)).toBe("53300");
        for (const r of held) r.release();
      } finally {
        await extra.end();
        await sql.end();
      }
    } finally {
      await small.destroy();
      await small.destroy();
    }
    expect(existsSync(small.dataDir)).toBe(false);
    const probe = postgres(small.url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    expect(await errorCode(probe`select 1`)).toBe("ECONNREFUSED");
    await probe.end();
  });
});

describe("TCP proxy", () => {
  it("[faults] the proxy forwards postgres.js queries both ways and counts its connections", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
    const sql = client(proxy.url(cluster.url), 2);
    try {
      expect(proxy.url(cluster.url)).toBe(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`);
      const [row] = await sql<{ n: number; big: string }[]>`select 41 + 1 as n, repeat('x', 1000000) as big`;
      expect(row?.n).toBe(42);
      expect(row?.big.length).toBe(1_000_000);
      expect(proxy.connections()).toBe(1);
      expect(proxy.stats().fromTarget).toBeGreaterThan(1_000_000);
    } finally {
      await sql.end();
      await proxy.close();
    }
  });

  it("[faults] a frozen proxy holds a query without closing the connection, and thawing lets it finish", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
    const sql = client(proxy.url(cluster.url));
    try {
      const [before] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
      proxy.freeze();
      const sent = proxy.stats();

      const query = sql<{ pid: number; n: number }[]>`select pg_backend_pid() as pid, 7 as n`;
      expect(await within(query, 1000)).toBe("pending");
      expect(proxy.stats()).toEqual(sent);
      expect(proxy.connections()).toBe(1);

      proxy.thaw();
      const [after] = await query;
      expect(after).toEqual({ pid: before?.pid, n: 7 });
      expect(proxy.stats().toTarget).toBeGreaterThan(sent.toTarget);
    } finally {
      await sql.end();
      await proxy.close();
    }
  });

  it("[faults] a connection opened while frozen hangs without reaching the server, and goes through on thaw", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
    const admin = client(cluster.url);
    const sql = client(proxy.url(cluster.url));
    const backends = async () =>
      (
        await admin<
          { n: number }[]
        >`select count(*)::int as n from pg_stat_activity where backend_type = 'client backend'`
      )[0]?.n;
    try {
      const baseline = await backends();
      proxy.freeze();
      const query = sql<{ n: number }[]>`select 1 as n`;
      expect(await within(query, 1000)).toBe("pending");
      expect(proxy.connections()).toBe(1);
      expect(proxy.stats()).toEqual({ toTarget: 0, fromTarget: 0, dialed: 0 });
      expect(await backends()).toBe(baseline);

      proxy.thaw();
      expect(await query).toEqual([{ n: 1 }]);
      expect(proxy.stats().dialed).toBe(1);
    } finally {
      await sql.end();
      await admin.end();
      await proxy.close();
    }
  });

  it("[faults] closing the proxy kills its connections: the client's query fails and the server's backend ends", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
    const admin = client(cluster.url);
    const sql = postgres(proxy.url(cluster.url), { max: 1, onnotice: () => {}, connect_timeout: 2 });
    try {
      const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const inflight = errorCode(sql`select pg_sleep(10)`);
      await untilSleeping(cluster.url, row?.pid);

      await proxy.close();
      expect(proxy.connections()).toBe(0);
      expect(await inflight).toBe("CONNECTION_CLOSED");
      expect(await errorCode(sql`select 1`)).toBe("ECONNREFUSED");

      // The server notices once its current statement ends; cancel the sleep so it does now.
      await admin`select pg_cancel_backend(${row?.pid ?? 0})`;
      let alive = true;
      for (let i = 0; alive && i < 50; i++) {
        alive = (await admin`select 1 from pg_stat_activity where pid = ${row?.pid ?? 0}`).length > 0;
        if (alive) await sleep(100);
      }
      expect(alive).toBe(false);
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end();
    }
  });
});

describe("process helpers", () => {
  it("[faults] spawnProcess passes env, collects output, waits for a line and reports how the process exited", async () => {
    const script = `
      console.log("ready on " + process.env.FAULT_PORT);
      process.on("SIGTERM", () => { console.error("draining"); process.exit(3); });
      setInterval(() => {}, 1000);`;
    const p = spawnProcess(process.execPath, ["-e", script], { env: { FAULT_PORT: "4321" } });
    const m = await p.waitForLine(/ready on (\d+)/, 5000);
    expect(m[1]).toBe("4321");
    await expect(p.waitForExit(200)).rejects.toThrow(/still running/);

    expect(p.kill("SIGTERM")).toBe(true);
    const exit = await p.waitForExit(5000);
    expect(exit).toMatchObject({ code: 3, signal: null });
    expect(exit.ms).toBeGreaterThan(0);
    expect(p.stderr).toContain("draining");
    expect(p.stdout).toBe("ready on 4321\n");
    await expect(p.waitForLine(/never printed/, 1000)).rejects.toThrow(/exited \(3\) before printing/);
  });

  it("[faults] spawnProcess with group: true SIGKILLs the whole process group, grandchildren included", async () => {
    const p = spawnProcess("sh", ["-c", "sleep 60 & echo grandchild $!; wait"], { group: true });
    const m = await p.waitForLine(/grandchild (\d+)/, 5000);
    const grandchild = Number(m[1]);
    p.kill("SIGKILL");
    expect(await p.waitForExit(5000)).toMatchObject({ code: null, signal: "SIGKILL" });

    // Gone, or a zombie waiting for an init that does not reap.
    let gone = false;
    for (let i = 0; !gone && i < 20; i++) {
      try {
        process.kill(grandchild, 0);
        gone = /\) Z /.test(readFileSync(`/proc/${grandchild}/stat`, "utf8"));
      } catch {
        gone = true;
      }
      if (!gone) await sleep(50);
    }
    expect(gone).toBe(true);
  });

  it("[faults] waitForHttp gives up on a hung request, skips unexpected statuses and resolves on the expected one", async () => {
    const port = await freePort();
    // Request 1 hangs forever, request 2 answers 503, then 200.
    const server = `
      let n = 0;
      require("node:http").createServer((req, res) => {
        n++;
        if (n === 1) return;
        res.writeHead(n === 2 ? 503 : 200).end("hit " + n);
      }).listen(${port}, "127.0.0.1", () => console.log("listening"));`;
    const p = spawnProcess(process.execPath, ["-e", server]);
    try {
      await p.waitForLine(/listening/, 5000);
      const res = await waitForHttp(`http://127.0.0.1:${port}/health`, {
        expectStatus: 200,
        requestTimeoutMs: 300,
        intervalMs: 20,
        timeoutMs: 5000,
      });
      // The hung first request was given up on after its 300 ms, the 503 skipped; on a loaded machine the 503 may
      // itself outlast 300 ms and be given up on too, so the 200 comes at the third request or later.
      expect(res.status).toBe(200);
      expect(res.attempts).toBeGreaterThanOrEqual(3);
      // A request given up on before the server read it is not a hit.
      const hit = Number(/^hit (\d+)$/.exec(res.body ?? "")?.[1]);
      expect(hit).toBeGreaterThanOrEqual(3);
      expect(hit).toBeLessThanOrEqual(res.attempts);
      expect(res.ms).toBeGreaterThanOrEqual(300);
      expect(res.ms).toBeLessThan(5000);

      // Long enough for an answer on a loaded machine: the error names the last status it saw, not a timeout.
      await expect(waitForHttp(`http://127.0.0.1:${port}/`, { expectStatus: 418, timeoutMs: 3000 })).rejects.toThrow(
        /status 200/,
      );
    } finally {
      p.kill("SIGKILL");
      await p.waitForExit(5000);
    }
    await expect(waitForHttp(`http://127.0.0.1:${port}/`, { timeoutMs: 300 })).rejects.toThrow(/ECONNREFUSED/);
  });
});
