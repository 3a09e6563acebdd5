import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { destinationSecrets, listDestinations, syncDeclaredDestinations } from "@/lib/forward/destinations";
import {
  createDestination,
  rotateDestinationSecret,
  setDestinationState,
  updateDestination,
} from "@/lib/forward/manage";
import { sendTestDelivery } from "@/lib/forward/test-delivery";
import { setupTestDb } from "../db";
import { query } from "../worker/helpers";
import { admin, auditRows, box, context, destinations, FILE_SECRET, ops, support } from "./console-helpers";

const { db } = setupTestDb();
const destination = destinations();

async function declareFileDestination(url = "http://127.0.0.1:1/hooks") {
  await syncDeclaredDestinations(db, [
    {
      name: "warehouse",
      url,
      secretEnv: "FILE_DEST_SECRET",
      mode: "every",
      format: "standard",
      maxInFlight: 10,
      timeoutMs: 2000,
      maxAttempts: 10,
      state: "active",
    },
  ]);
}

const signingSecrets = async (name: string) =>
  destinationSecrets(
    db,
    (await listDestinations(db)).find((d) => d.name === name)!,
    {
      envVar: () => undefined,
      box,
    },
  );

describe("destinations managed in the console", () => {
  it("[forward] an admin adds a destination: a whsec_ secret shown once, stored sealed, and audited by host", async () => {
    const issued = await createDestination(context(db), {
      name: "billing",
      url: "https://hooks.example.com/ledger?token=abc",
      types: ["customer.subscription.*"],
      mode: "newest",
    });
    expect(issued.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(issued.secret.slice(6), "base64")).toHaveLength(32);
    const [row] = await query<Record<string, unknown>>(db, sql`select * from forward_destination`);
    expect(row).toMatchObject({ name: "billing", origin: "console", mode: "newest", state: "active" });
    const stored = JSON.stringify(await query(db, sql`select * from forward_destination_secret`));
    expect(stored).not.toContain(issued.secret);
    expect(stored).toContain(issued.fingerprint);
    expect(await signingSecrets("billing")).toEqual([issued.secret]);
    const audit = await auditRows(db);
    expect(JSON.stringify(audit)).not.toContain(issued.secret);
    expect(JSON.stringify(audit)).not.toContain("token=abc");
    expect(audit).toMatchObject([
      {
        action: "destinations.create",
        target: "destination:billing",
        result: "ok",
        detail: { host: "hooks.example.com", mode: "newest", fingerprint: issued.fingerprint },
      },
    ]);
  });

  it("[forward] support and ops may not add one: refused, nothing written, the refusal audited", async () => {
    for (const actor of [support, ops])
      await expect(
        createDestination(context(db, actor), { name: "billing", url: "https://hooks.example.com/" }),
      ).rejects.toThrow(ForbiddenError);
    await expect(
      createDestination(context(db, admin, { actor: undefined }), {
        name: "billing",
        url: "https://hooks.example.com/",
      }),
    ).rejects.toThrow(ForbiddenError);
    expect(await query(db, sql`select name from forward_destination`)).toEqual([]);
    expect((await auditRows(db)).map((r) => [r.action, r.actor_email, r.result])).toEqual([
      ["destinations.create", "support@example.com", "refused"],
      ["destinations.create", "ops@example.com", "refused"],
      ["destinations.create", "anonymous", "refused"],
    ]);
  });

  it("[forward] bad input is a ValidationError naming the field; a taken name and a missing key are conflicts", async () => {
    await expect(createDestination(context(db), { name: "Billing!", url: "https://x.example/" })).rejects.toThrow(
      /lowercase letters/,
    );
    await expect(createDestination(context(db), { name: "billing", url: "ftp://x.example/" })).rejects.toThrow(
      ValidationError,
    );
    await expect(
      createDestination(context(db), { name: "billing", url: "https://x.example/", timeoutMs: 5 }),
    ).rejects.toThrow(ValidationError);
    await createDestination(context(db), { name: "billing", url: "https://x.example/" });
    await expect(createDestination(context(db), { name: "billing", url: "https://y.example/" })).rejects.toThrow(
      /already exists/,
    );
    await expect(
      createDestination(context(db, admin, { box: undefined }), { name: "other", url: "https://x.example/" }),
    ).rejects.toThrow(/LEDGER_SECRET_KEY is not set/);
    expect((await query<{ name: string }>(db, sql`select name from forward_destination`)).map((r) => r.name)).toEqual([
      "billing",
    ]);
    expect((await auditRows(db)).map((r) => r.result)).toEqual(["error", "error", "error", "ok", "error", "error"]);
  });

  it("[forward] an admin changes a console destination's settings; a declared one is refused, saying where to", async () => {
    await createDestination(context(db), { name: "billing", url: "https://x.example/", types: ["invoice.*"] });
    await updateDestination(context(db), {
      name: "billing",
      url: "https://y.example/in",
      sources: ["stripe"],
      maxAttempts: 3,
      ratePerSecond: 5,
    });
    const [d] = await listDestinations(db);
    expect(d).toMatchObject({
      url: "https://y.example/in",
      sources: ["stripe"],
      types: null,
      maxAttempts: 3,
      ratePerSecond: 5,
      mode: "every",
    });
    await declareFileDestination();
    await expect(updateDestination(context(db), { name: "warehouse", url: "https://z.example/" })).rejects.toThrow(
      /declared in DESTINATIONS_FILE: change its settings there/,
    );
    await expect(updateDestination(context(db), { name: "nope", url: "https://z.example/" })).rejects.toThrow(
      NotFoundError,
    );
    await expect(updateDestination(context(db, ops), { name: "billing", url: "https://z.example/" })).rejects.toThrow(
      ForbiddenError,
    );
    expect((await auditRows(db)).slice(1).map((r) => [r.action, r.result])).toEqual([
      ["destinations.update", "ok"],
      ["destinations.update", "error"],
      ["destinations.update", "error"],
      ["destinations.update", "refused"],
    ]);
  });

  it("[forward] pause and resume work on both kinds; a declared destination cannot be disabled here", async () => {
    await createDestination(context(db), { name: "billing", url: "https://x.example/" });
    await declareFileDestination();
    const states = async () => Object.fromEntries((await listDestinations(db)).map((d) => [d.name, d.state] as const));
    await setDestinationState(context(db), { name: "billing", state: "paused" });
    await setDestinationState(context(db), { name: "warehouse", state: "paused" });
    expect(await states()).toEqual({ billing: "paused", warehouse: "paused" });
    await setDestinationState(context(db), { name: "warehouse", state: "active" });
    await setDestinationState(context(db), { name: "billing", state: "disabled" });
    expect(await states()).toEqual({ billing: "disabled", warehouse: "active" });
    await expect(setDestinationState(context(db), { name: "warehouse", state: "disabled" })).rejects.toThrow(
      /declared in DESTINATIONS_FILE: disable it there; the console only pauses and resumes it/,
    );
    await expect(setDestinationState(context(db, support), { name: "billing", state: "active" })).rejects.toThrow(
      ForbiddenError,
    );
    expect(await states()).toEqual({ billing: "disabled", warehouse: "active" });
    const audit = (await auditRows(db)).filter((r) => r.action === "destinations.set-state");
    expect(audit.map((r) => [r.target, r.result])).toEqual([
      ["destination:billing", "ok"],
      ["destination:warehouse", "ok"],
      ["destination:warehouse", "ok"],
      ["destination:billing", "ok"],
      ["destination:warehouse", "error"],
      ["destination:billing", "refused"],
    ]);
    expect(audit[0]!.detail).toEqual({ from: "active", to: "paused" });
  });

  it("[forward] rotation: a new secret shown once, the old one keeps signing for the overlap, both signatures sent", async () => {
    const dest = await destination();
    const first = await createDestination(context(db), { name: "billing", url: dest.url });
    const second = await rotateDestinationSecret(context(db), { name: "billing" });
    expect(second.secret).not.toBe(first.secret);
    const hours = (second.othersExpireAt!.getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect(await signingSecrets("billing")).toEqual([first.secret, second.secret]);
    // The team's side verifies with either secret during the overlap.
    const sent = await sendTestDelivery(context(db), { name: "billing" });
    expect(sent.ok).toBe(true);
    const r = dest.received[0]!;
    expect(String(r.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [first.secret, second.secret])
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({
        type: "ledger.test",
      });
    // A rotation with no overlap: the others stop now, and only the newest signs.
    const third = await rotateDestinationSecret(context(db), { name: "billing", overlapHours: 0 });
    expect(await signingSecrets("billing")).toEqual([third.secret]);
    const audit = (await auditRows(db)).filter((a) => a.action === "destinations.rotate-secret");
    expect(audit.map((a) => a.detail)).toEqual([
      { fingerprint: second.fingerprint, overlapHours: 24, retiring: 1 },
      { fingerprint: third.fingerprint, overlapHours: 0, retiring: 2 },
    ]);
    expect(JSON.stringify(await auditRows(db))).not.toMatch(/whsec_/);
  });

  it("[forward] a declared destination's secret is rotated in its variable, not here; ops may not rotate", async () => {
    await declareFileDestination();
    await expect(rotateDestinationSecret(context(db), { name: "warehouse" })).rejects.toThrow(
      /rotate its secret in FILE_DEST_SECRET there/,
    );
    await createDestination(context(db), { name: "billing", url: "https://x.example/" });
    await expect(rotateDestinationSecret(context(db, ops), { name: "billing" })).rejects.toThrow(ForbiddenError);
    await expect(rotateDestinationSecret(context(db), { name: "billing", overlapHours: -1 })).rejects.toThrow(
      /cannot be negative/,
    );
    expect(await query(db, sql`select 1 from forward_destination_secret`)).toHaveLength(1);
  });
});

describe("test delivery", () => {
  it("[forward] ops send a signed ledger.test envelope to a real destination and see its status, latency and answer", async () => {
    const dest = await destination(() => ({ status: 202, body: "<b>accepted</b>" }));
    const issued = await createDestination(context(db), { name: "billing", url: dest.url });
    await setDestinationState(context(db), { name: "billing", state: "paused" });
    const r = await sendTestDelivery(context(db, ops), { name: "billing" });
    expect(r).toMatchObject({ name: "billing", ok: true, status: 202, excerpt: "<b>accepted</b>" });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.webhookId).toMatch(/^fwd_[0-9a-f]{32}$/);
    expect(dest.received).toHaveLength(1);
    const got = dest.received[0]!;
    expect(got.headers["webhook-id"]).toBe(r.webhookId);
    const body = new Webhook(issued.secret).verify(got.body, got.headers as Record<string, string>);
    expect(body).toMatchObject({ source: "ledger", type: "ledger.test", entity: null, payload: { test: true } });
    // Not an outbox row: nothing waits to be sent, nothing counts against the destination.
    expect(await query(db, sql`select 1 from forward`)).toEqual([]);
    expect(await query(db, sql`select 1 from forward_attempt`)).toEqual([]);
    const audit = (await auditRows(db)).filter((a) => a.action === "destinations.test");
    expect(audit).toMatchObject([{ result: "ok", actor_email: "ops@example.com", detail: { status: 202 } }]);
  });

  it("[forward] a failing destination's answer is reported as it came, and the audit row says error", async () => {
    const dest = await destination(() => ({ status: 500, body: "<script>alert(1)</script>" }));
    await createDestination(context(db), { name: "billing", url: dest.url });
    const r = await sendTestDelivery(context(db), { name: "billing" });
    expect(r).toMatchObject({ ok: false, status: 500, excerpt: "<script>alert(1)</script>", error: "answered 500" });
    expect((await auditRows(db)).at(-1)).toMatchObject({ result: "error", error: "answered 500" });
  });

  it("[forward] the forwarder's address rules hold for a test delivery; support is refused; a declared one signs from its variable", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "billing", url: dest.url });
    const refused = await sendTestDelivery(context(db, admin, { allowPrivate: false }), { name: "billing" });
    expect(refused).toMatchObject({ ok: false });
    expect(refused.error).toMatch(/loopback or private/);
    expect(dest.received).toHaveLength(0);
    await expect(sendTestDelivery(context(db, support), { name: "billing" })).rejects.toThrow(ForbiddenError);
    await expect(sendTestDelivery(context(db), { name: "nope" })).rejects.toThrow(NotFoundError);
    await declareFileDestination(dest.url);
    expect((await sendTestDelivery(context(db), { name: "warehouse" })).ok).toBe(true);
    const got = dest.received[0]!;
    expect(new Webhook(FILE_SECRET).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: "ledger.test",
    });
    await expect(sendTestDelivery(context(db, admin, { box: undefined }), { name: "billing" })).rejects.toThrow(
      ConflictError,
    );
    expect((await auditRows(db)).map((a) => a.result)).toEqual(["ok", "error", "refused", "error", "ok", "error"]);
  });
});
