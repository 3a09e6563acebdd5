import { readFileSync } from "node:fs";
import path from "node:path";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Proofs for the architecture rules in eslint.config.mjs: for each, a snippet that breaks it makes the expected
 * rule fire, and one that keeps it lints clean. The snippets are linted under virtual paths (`__fixture__` files
 * that do not exist) inside the folder each rule covers; the rules are syntactic, so type-aware linting is off
 * here (it needs files on disk). `npx eslint .` is the proof that the real tree keeps them.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: path.join(ROOT, "eslint.config.mjs"),
    overrideConfig: tseslint.configs.disableTypeChecked as Linter.Config,
  });
});

async function errors(filePath: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return (result?.messages ?? []).filter((m) => m.severity === 2);
}

/** The snippet at that path fires `ruleId` (and the message mentions `mentions`, when given). */
async function expectFires(filePath: string, code: string, ruleId: string, mentions?: string | RegExp) {
  const found = await errors(filePath, code);
  const hits = found.filter((m) => m.ruleId === ruleId);
  expect(
    hits,
    `${filePath} should fire ${ruleId}; got ${JSON.stringify(found.map((m) => [m.ruleId, m.message]))}`,
  ).not.toHaveLength(0);
  if (mentions) expect(hits.map((m) => m.message).join("\n")).toMatch(mentions);
}

async function expectClean(filePath: string, code: string) {
  const found = await errors(filePath, code);
  expect(
    found.map((m) => `${m.ruleId}: ${m.message}`),
    filePath,
  ).toEqual([]);
}

describe("lint: process.env only in lib/env.ts", () => {
  it("fires for a read, a destructuring and an import of env, in lib/, db/, app/, components/, server.ts and proxy.ts", async () => {
    await expectFires(
      "lib/ledger/__fixture__.ts",
      "export const url = process.env.DATABASE_URL;\n",
      "no-restricted-properties",
      /lib\/env\.ts/,
    );
    await expectFires(
      "lib/cli/__fixture__.ts",
      "const { env } = process;\nexport const copy = { ...env };\n",
      "no-restricted-properties",
    );
    await expectFires(
      "lib/worker/__fixture__.ts",
      'import { env } from "node:process";\nexport const port = env.PORT;\n',
      "no-restricted-imports",
    );
    await expectFires(
      "db/__fixture__.ts",
      "export const url = process.env.DATABASE_URL;\n",
      "no-restricted-properties",
    );
    await expectFires(
      "app/api/__fixture__/route.ts",
      "export const url = process.env.APP_URL;\n",
      "no-restricted-properties",
    );
    await expectFires(
      "components/__fixture__.tsx",
      "export const dev = process.env.NODE_ENV;\n",
      "no-restricted-properties",
    );
    await expectFires("server.ts", "export const port = process.env.PORT;\n", "no-restricted-properties");
    await expectFires("proxy.ts", "export const url = process.env.APP_URL;\n", "no-restricted-properties");
  });

  it("does not fire in lib/env.ts, in instrumentation.ts (NEXT_RUNTIME), or for getEnv()/inheritedEnv()", async () => {
    await expectClean("lib/env.ts", "export const all = { ...process.env };\n");
    await expectClean("instrumentation.ts", 'export const node = process.env.NEXT_RUNTIME === "nodejs";\n');
    await expectClean(
      "lib/cli/__fixture__.ts",
      'import { getEnv, inheritedEnv } from "@/lib/env";\nexport const child = { ...inheritedEnv(), PORT: String(getEnv().PORT) };\n',
    );
  });
});

describe("lint: lib/ and db/ import nothing from test/ (nor e2e/, bench/)", () => {
  it("fires for @/test/*, relative ../test/ and bench/", async () => {
    await expectFires(
      "lib/demo/__fixture__.ts",
      'import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";\nexport const e = stripeSubscriptionEvent;\n',
      "no-restricted-imports",
      /lib\/samples/,
    );
    await expectFires(
      "lib/demo/__fixture__.ts",
      'import { stripeSubscriptionEvent } from "../../test/fixtures/stripe";\nexport const e = stripeSubscriptionEvent;\n',
      "no-restricted-imports",
    );
    await expectFires(
      "db/__fixture__.ts",
      'import { signStripe } from "../test/sign";\nexport const s = signStripe;\n',
      "no-restricted-imports",
    );
    await expectFires(
      "lib/cli/__fixture__.ts",
      'import { ADMIN_URL } from "@/bench/worker-db";\nexport const u = ADMIN_URL;\n',
      "no-restricted-imports",
    );
  });

  it("fires for lib/demo/traffic.ts as it was (built from test fixtures), not as it is (lib/samples/)", async () => {
    const now = readFileSync(path.join(ROOT, "lib/demo/traffic.ts"), "utf8");
    expect(now).toContain('from "@/lib/samples/');
    await expectFires(
      "lib/demo/traffic.ts",
      now.replaceAll('from "@/lib/samples/', 'from "@/test/fixtures/'),
      "no-restricted-imports",
    );
    await expectClean("lib/demo/traffic.ts", now);
  });
});

describe("lint: db/ imports nothing from lib/", () => {
  it("fires for @/lib/* and relative ../lib/ in db/", async () => {
    await expectFires(
      "db/schema/__fixture__.ts",
      'import { getEnv } from "@/lib/env";\nexport const e = getEnv;\n',
      "no-restricted-imports",
      /db\/ is the bottom/,
    );
    await expectFires(
      "db/__fixture__.ts",
      'import { describeError } from "../lib/errors";\nexport const d = describeError;\n',
      "no-restricted-imports",
    );
    await expectFires(
      "db/__fixture__.ts",
      'import type { Actor } from "@/lib/roles";\nexport type A = Actor;\n',
      "no-restricted-imports",
    );
  });

  it("allows db/index.ts and db/migrate-cli.ts lib/env and lib/errors, and nothing else from lib/", async () => {
    await expectClean(
      "db/index.ts",
      'import { getEnv } from "@/lib/env";\nimport { describeError } from "@/lib/errors";\nexport const x = [getEnv, describeError];\n',
    );
    await expectClean(
      "db/migrate-cli.ts",
      'import { getEnv } from "@/lib/env";\nimport { describeError } from "@/lib/errors";\nexport const x = [getEnv, describeError];\n',
    );
    await expectFires(
      "db/index.ts",
      'import { writeAudit } from "@/lib/audit/write";\nexport const w = writeAudit;\n',
      "no-restricted-imports",
      /nothing else/,
    );
    await expectClean(
      "db/__fixture__.ts",
      'import { connectPglite } from "./client";\nexport const c = connectPglite;\n',
    );
  });
});

describe("lint: lib/'s layers (boundaries)", () => {
  const layer = "boundaries/dependencies";

  it("fires for an import upwards", async () => {
    await expectFires(
      "lib/ledger/__fixture__.ts",
      'import { receiveWebhook } from "@/lib/receiver/receive";\nexport const r = receiveWebhook;\n',
      layer,
      /ledger may not import @\/lib\/receiver\/receive \(receiver\)/,
    );
    await expectFires(
      "lib/handlers/__fixture__.ts",
      'import { processLeased } from "@/lib/ledger/process";\nexport const p = processLeased;\n',
      layer,
      /handlers may not import/,
    );
    await expectFires(
      "lib/intake/__fixture__.ts",
      'import { confirmFromProviders } from "@/lib/replay/confirm";\nexport const c = confirmFromProviders;\n',
      layer,
    );
    await expectFires(
      "lib/replay/__fixture__.ts",
      'import { receiveWebhook } from "@/lib/receiver/receive";\nexport const r = receiveWebhook;\n',
      layer,
    );
    await expectFires("lib/server/__fixture__.ts", 'import "@/lib/cli/seed";\nexport const x = 1;\n', layer);
    // A type is a dependency too.
    await expectFires(
      "lib/ledger/__fixture__.ts",
      'import type { ReceiverDeps } from "@/lib/receiver/receive";\nexport type D = ReceiverDeps;\n',
      layer,
    );
  });

  it("fires for an import beside (same layer, another unit)", async () => {
    await expectFires(
      "lib/intake/__fixture__.ts",
      'import { wakeWorkers } from "@/lib/worker/embedded";\nexport const w = wakeWorkers;\n',
      layer,
    );
    await expectFires(
      "lib/handlers/__fixture__.ts",
      'import { audited } from "@/lib/audit/audited";\nexport const a = audited;\n',
      layer,
    );
  });

  it("keeps the bottom at the bottom: providers, errors, env, lifecycle import no db and nothing above", async () => {
    await expectFires(
      "lib/providers/__fixture__.ts",
      'import { getDb } from "@/db";\nexport const g = getDb;\n',
      layer,
      /providers may not import @\/db \(db\)/,
    );
    await expectFires(
      "lib/errors.ts",
      'import { getEnv } from "@/lib/env";\nexport const g = getEnv;\n',
      layer,
      /errors may not import @\/lib\/env \(env\)/,
    );
    await expectFires(
      "lib/env.ts",
      'import { describeError } from "./errors";\nexport const d = describeError;\n',
      layer,
    );
    await expectFires("lib/lifecycle.ts", 'import { getDb } from "@/db";\nexport const g = getDb;\n', layer);
    await expectFires(
      "lib/samples/__fixture__.ts",
      'import { stripe } from "@/lib/providers/stripe";\nexport const p = stripe;\n',
      layer,
    );
    await expectFires(
      "lib/format/__fixture__.ts",
      'import { PROVIDERS } from "@/lib/providers";\nexport const p = PROVIDERS;\n',
      layer,
    );
    await expectClean(
      "lib/handlers/__fixture__.ts",
      'import { formatMinor } from "@/lib/format/money";\nexport const f = formatMinor;\n',
    );
  });

  it("treats lib/audit/write.ts as part of auth: it may use the roles, not the ledger", async () => {
    await expectClean("lib/audit/write.ts", 'import { authorize } from "@/lib/roles";\nexport const a = authorize;\n');
    await expectFires(
      "lib/audit/write.ts",
      'import { requeueEvent } from "@/lib/console/requeue";\nexport const r = requeueEvent;\n',
      layer,
    );
  });

  it("fires for a file in lib/ that belongs to no layer, and for an import of a local file that is none", async () => {
    await expectFires("lib/newthing/__fixture__.ts", "export const x = 1;\n", "boundaries/no-unknown-files");
    await expectFires("lib/__fixture__.ts", "export const x = 1;\n", "boundaries/no-unknown-files");
    await expectFires(
      "lib/ledger/__fixture__.ts",
      'import { TEST_SECRETS } from "@/test/sign";\nexport const s = TEST_SECRETS;\n',
      layer,
      /no layer/,
    );
  });

  it("does not fire for imports downwards, within a unit, or of packages", async () => {
    await expectClean(
      "lib/ledger/__fixture__.ts",
      [
        'import { readFileSync } from "node:fs";',
        'import { sql } from "drizzle-orm";',
        'import { z } from "zod";',
        'import { getDb } from "@/db";',
        'import { authorize } from "@/lib/roles";',
        'import { writeAudit } from "@/lib/audit/write";',
        'import { describeError } from "@/lib/errors";',
        'import { applyBatch } from "@/lib/handlers/dispatch";',
        'import { PROVIDERS } from "@/lib/providers";',
        'import { pgArray } from "@/db/pg-array";',
        "export const all = [readFileSync, sql, z, getDb, authorize, writeAudit, describeError, applyBatch, PROVIDERS, pgArray];",
        "",
      ].join("\n"),
    );
    await expectClean(
      "lib/receiver/__fixture__.ts",
      [
        'import { confirmFromProviders } from "@/lib/replay/confirm";',
        'import { describeDelivery } from "@/lib/intake/describe";',
        "export const x = [confirmFromProviders, describeDelivery];",
        "",
      ].join("\n"),
    );
    await expectClean(
      "lib/cli/__fixture__.ts",
      [
        'import { startLedgerServer } from "@/lib/server/http";',
        'import { demoTraffic } from "@/lib/demo/traffic";',
        "export const x = [startLedgerServer, demoTraffic];",
        "",
      ].join("\n"),
    );
    await expectClean(
      "lib/demo/__fixture__.ts",
      'import { stripeSubscriptionEvent } from "@/lib/samples/stripe";\nexport const e = stripeSubscriptionEvent;\n',
    );
  });
});

describe("lint: lib/ and db/ are framework-free", () => {
  it('fires for "use server", "use client", server-only, next/*, react and @/components/* in lib/, and next/* in db/', async () => {
    await expectFires(
      "lib/ledger/__fixture__.ts",
      '"use server";\nexport async function f() {}\n',
      "no-restricted-syntax",
      /use server/,
    );
    await expectFires("lib/ledger/__fixture__.ts", '"use client";\nexport const x = 1;\n', "no-restricted-syntax");
    await expectFires(
      "lib/auth/__fixture__.ts",
      'import "server-only";\nexport const x = 1;\n',
      "no-restricted-imports",
      /framework-free/,
    );
    await expectFires(
      "lib/auth/__fixture__.ts",
      'import { cookies } from "next/headers";\nexport const c = cookies;\n',
      "no-restricted-imports",
      /framework-free/,
    );
    await expectFires(
      "lib/ledger/__fixture__.ts",
      'import { cache } from "react";\nexport const c = cache;\n',
      "no-restricted-imports",
      /framework-free/,
    );
    await expectFires(
      "lib/ledger/__fixture__.ts",
      'import { JsonViewer } from "@/components/json-viewer";\nexport const j = JsonViewer;\n',
      "no-restricted-imports",
      /UI/,
    );
    await expectFires(
      "db/__fixture__.ts",
      'import { NextResponse } from "next/server";\nexport const n = NextResponse;\n',
      "no-restricted-imports",
      /framework-free/,
    );
  });
});

describe("lint: app/ and components/ import no @/db values", () => {
  it("fires for a value import of @/db or @/db/*", async () => {
    await expectFires(
      "app/(console)/__fixture__/page.tsx",
      'import { getDb } from "@/db";\nexport const g = getDb;\n',
      "no-restricted-imports",
      /through lib\//,
    );
    await expectFires(
      "components/__fixture__.tsx",
      'import { auditLog } from "@/db/schema";\nexport const a = auditLog;\n',
      "no-restricted-imports",
    );
  });

  it("allows type imports of @/db and imports of lib/", async () => {
    await expectClean(
      "app/(console)/__fixture__/page.tsx",
      'import type { Db } from "@/db/client";\nimport { getEnv } from "@/lib/env";\nexport type D = Db;\nexport const e = getEnv;\n',
    );
  });
});

describe("lint: app/ and components/ link through @/components/link", () => {
  it("fires for next/link anywhere but components/link.tsx", async () => {
    const snippet = 'import Link from "next/link";\nexport const L = Link;\n';
    await expectFires("app/(console)/__fixture__/page.tsx", snippet, "no-restricted-imports", /prefetches a route/);
    await expectFires("components/__fixture__.tsx", snippet, "no-restricted-imports", /prefetches a route/);
  });

  it("allows @/components/link", async () => {
    await expectClean(
      "app/(console)/__fixture__/page.tsx",
      'import Link from "@/components/link";\nexport const L = Link;\n',
    );
  });
});

describe("lint: no line over 160 characters", () => {
  // A line of exactly `n` characters: a string constant padded to length.
  const line = (n: number) => {
    const head = 'export const s = "';
    return `${head}${"x".repeat(n - head.length - 2)}";`;
  };

  it("fires for a line over 160 characters (code, a comment, an SQL template, a URL) in every folder that is linted", async () => {
    expect(line(161)).toHaveLength(161);
    await expectFires("lib/ledger/__fixture__.ts", `${line(161)}\n`, "max-len", /length of 161/);
    await expectFires("app/(console)/__fixture__/page.tsx", `${line(161)}\n`, "max-len");
    await expectFires("components/__fixture__.tsx", `${line(161)}\n`, "max-len");
    await expectFires("test/__fixture__.test.ts", `${line(161)}\n`, "max-len");
    await expectFires("e2e/__fixture__.spec.ts", `${line(161)}\n`, "max-len");
    await expectFires("bench/__fixture__.ts", `${line(161)}\n`, "max-len");
    await expectFires("__fixture__.config.mjs", `${line(161)}\n`, "max-len");
    await expectFires("lib/ledger/__fixture__.ts", `// ${"y".repeat(158)}\nexport const x = 1;\n`, "max-len");
    await expectFires(
      "lib/ledger/__fixture__.ts",
      `export const q = \`\n  select 1 from webhook_event where ${"event_id = 'e' or ".repeat(8)}false\`;\n`,
      "max-len",
    );
    await expectFires(
      "lib/ledger/__fixture__.ts",
      `export const u = "https://example.com/${"a/".repeat(70)}";\n`,
      "max-len",
    );
  });

  it("does not fire for a line of 160 characters, nor for the same text split over lines", async () => {
    expect(line(160)).toHaveLength(160);
    await expectClean("lib/ledger/__fixture__.ts", `${line(160)}\n`);
    await expectClean(
      "lib/ledger/__fixture__.ts",
      `export const s =\n  "${"x".repeat(100)}" +\n  "${"x".repeat(59)}";\n`,
    );
  });
});
