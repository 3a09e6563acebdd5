import { createHmac, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { ConflictError, ValidationError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import { LEMON_SQUEEZY_OPTIONS, lemonSqueezySubscriptionUpdated, TYPEFORM_OPTIONS } from "@/lib/samples/generic";
import { declaredSources } from "@/lib/sources/declared";
import { createSourceDirectory } from "@/lib/sources/directory";
import { createSource, type ManageContext } from "@/lib/sources/manage";
import { createSecretBox, unkeyedFingerprint } from "@/lib/sources/secret-box";
import { sendTestEvent } from "@/lib/sources/test-event";
import { testEventFor } from "@/lib/sources/test-samples";
import { parseEnv } from "@/lib/env";
import { setupTestDb } from "../db";
import { depsFor } from "../receiver/harness";
import { startReceiverServer } from "../receiver/http-server";
import { testSource } from "../sources";

const { db } = setupTestDb();
const admin: Actor = { id: "u-admin", email: "admin@example.com", role: "admin" };
const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const box = createSecretBox(randomBytes(32));
const LEMON_SECRET = "lemon-squeezy-signing-secret";
const POISONED = ["__proto__.prefix", "constructor.prototype.prefix", "a.prototype", "__proto__"];

const polluted = () => (Object.prototype as Record<string, unknown>).prefix;
afterEach(() => {
  // A failing run must not leak its pollution into the next test.
  delete (Object.prototype as Record<string, unknown>).prefix;
});

function lemonDelivery(eventName = "subscription_updated") {
  const body = JSON.stringify(lemonSqueezySubscriptionUpdated());
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-signature": createHmac("sha256", LEMON_SECRET).update(body).digest("hex"),
      "x-event-name": eventName,
    },
  };
}

describe("configured paths cannot reach a prototype", () => {
  it.each(POISONED)(
    "[sources] a generic path %s is refused in the console, naming the field, and nothing is written",
    async (path) => {
      const sources = createSourceDirectory({ declared: [], getDb: async () => db, box });
      const ctx: ManageContext = { db, actor: admin, sources, box };
      const err = await createSource(ctx, {
        slug: "typeform",
        provider: "generic",
        name: "Typeform",
        options: { ...TYPEFORM_OPTIONS, eventId: { path } },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toMatch(/^options: eventId\.path: .*__proto__, constructor or prototype/);
      const [row] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_source`));
      expect(row?.n).toBe(0);
    },
  );

  it("[sources] every configured path of every kind refuses __proto__, constructor and prototype segments", () => {
    const generic = PROVIDERS.generic.parseOptions!;
    const refused = (o: unknown) => expect(() => generic(o)).toThrow(/__proto__, constructor or prototype/);
    refused({ ...LEMON_SQUEEZY_OPTIONS, eventId: { hashOf: ["meta.event_name", "data.__proto__.x"] } });
    refused({ ...LEMON_SQUEEZY_OPTIONS, eventType: { path: "constructor" } });
    refused({ ...LEMON_SQUEEZY_OPTIONS, versionPath: "data.prototype" });
    refused({ ...LEMON_SQUEEZY_OPTIONS, entity: { typePath: "data.type", idPath: "__proto__.id" } });
    refused({ ...LEMON_SQUEEZY_OPTIONS, entity: { type: "x", typePath: "constructor", idPath: "data.id" } });
    refused({ ...LEMON_SQUEEZY_OPTIONS, signatureHeader: "__proto__" });
    expect(() => PROVIDERS.standard.parseOptions!({ typePath: "meta.__proto__" })).toThrow(
      /__proto__, constructor or prototype/,
    );
    // Look-alikes are ordinary names.
    expect(() => generic({ ...LEMON_SQUEEZY_OPTIONS, versionPath: "data.proto.constructors" })).not.toThrow();
  });

  it("[sources] SOURCES_FILE refuses a path through __proto__ at start-up, naming the entry and the field", () => {
    const file = JSON.stringify([
      {
        slug: "typeform",
        provider: "generic",
        name: "Typeform",
        secretsEnv: "TYPEFORM_SECRET",
        options: { ...TYPEFORM_OPTIONS, eventId: { path: "__proto__.prefix" } },
      },
    ]);
    const declare = () =>
      declaredSources(parseEnv({ SOURCES_FILE: "sources.json" }), {
        envVar: (name) => (name === "TYPEFORM_SECRET" ? "typeform-form-secret" : undefined),
        readFile: () => file,
        fingerprint: unkeyedFingerprint,
      });
    expect(declare).toThrow(/entry 1 \("typeform"\): options: eventId\.path: .*__proto__, constructor or prototype/);
  });

  it("[sources] a test event built from a poisoned path (the refusal bypassed) writes no prototype", () => {
    for (const path of POISONED) {
      const source = testSource("typeform", "generic", ["typeform-form-secret"], {
        options: { ...TYPEFORM_OPTIONS, eventId: { path }, versionPath: path, entity: { type: "t", idPath: path } },
      });
      const sample = testEventFor(source, "evt_test_poison", new Date());
      expect(typeof sample.body).toBe("string");
      expect(polluted()).toBeUndefined();
      expect(({} as Record<string, unknown>).prefix).toBeUndefined();
    }
  });

  it("[sources] a poisoned source's test event cannot affect another source: the other generic source still verifies", async () => {
    const sources = createSourceDirectory({
      declared: [
        testSource("lemon", "generic", [LEMON_SECRET], {
          options: PROVIDERS.generic.parseOptions!(LEMON_SQUEEZY_OPTIONS),
        }),
      ],
      getDb: async () => db,
      box,
      refreshMs: 60_000,
    });
    const ctx: ManageContext = { db, actor: admin, sources, box };
    await createSource(ctx, {
      slug: "typeform",
      provider: "generic",
      name: "Typeform",
      options: TYPEFORM_OPTIONS,
      secret: "typeform-form-secret",
    });
    // What an older version let an admin save, or a hand-edited row: the refusal bypassed on purpose.
    await db.execute(
      sql`update webhook_source set options = jsonb_set(options, '{eventId}', '{"path": "__proto__.prefix"}')
          where slug = 'typeform'`,
    );
    sources.invalidate();
    const server = await startReceiverServer(depsFor(db, { sources }));
    try {
      // The console refuses to sign with options that no longer parse, and names the field.
      const refused = await sendTestEvent({ db, actor: ops, sources, baseUrl: server.url }, { slug: "typeform" }).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(ConflictError);
      expect((refused as Error).message).toMatch(/eventId\.path: a path may not go through __proto__/);
      // And the sample itself, built from the poisoned row directly, writes nothing outside itself.
      const poisoned = await sources.find("typeform");
      testEventFor(poisoned!, "evt_test_poison", new Date());
      expect(polluted()).toBeUndefined();
      const d = lemonDelivery();
      const res = await fetch(`${server.url}/api/webhooks/lemon`, { method: "POST", headers: d.headers, body: d.body });
      expect({ status: res.status, body: (await res.json()) as unknown }).toEqual({
        status: 200,
        body: { received: true, duplicate: false },
      });
    } finally {
      await server.close();
    }
  });

  it("[sources] a generic source's test event still fills its nested paths and is stored under its id", async () => {
    const sources = createSourceDirectory({ declared: [], getDb: async () => db, box, refreshMs: 60_000 });
    await createSource(
      { db, actor: admin, sources, box },
      {
        slug: "typeform",
        provider: "generic",
        name: "Typeform",
        options: TYPEFORM_OPTIONS,
        secret: "typeform-form-secret",
      },
    );
    const server = await startReceiverServer(depsFor(db, { sources }));
    try {
      const test = await sendTestEvent({ db, actor: ops, sources, baseUrl: server.url }, { slug: "typeform" });
      expect(test).toMatchObject({ status: 200, eventType: "ledger.test" });
      const [row] = rowsOf<{ event_id: string; entity_id: string; body: string }>(
        await db.execute(
          sql`select event_id, entity_id, raw_body as body from webhook_event where source = 'typeform'`,
        ),
      );
      expect(row).toMatchObject({ event_id: test.eventId, entity_id: "test_object" });
      expect(JSON.parse(row!.body)).toMatchObject({ form_response: { token: "test_object" } });
    } finally {
      await server.close();
    }
  });
});
