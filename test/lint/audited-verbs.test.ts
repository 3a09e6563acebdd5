import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every state-changing verb the console reaches goes through audited() (lib/audit/audited.ts), or writes its audit
 * row itself with writeAudit() (lib/audit/write.ts) where there is no signed-in actor (the first-admin setup link).
 * No lint rule sees that, so this reads the code: each lib/ function a server action (`"use server"` files in
 * app/) imports is a read by its name (list*, get*, count*, preview*), an exception listed below with its
 * reason, or a function whose body calls audited()/writeAudit(), directly or through lib/ functions it calls.
 * requirePermission() is not followed: it audits only a refusal, so a verb that checks the role with it and then
 * changes something outside audited() leaves no row for the change.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

const READ = /^(list|get|count|preview)[A-Z]/;
const SINKS: Record<string, string> = { audited: "lib/audit/audited.ts", writeAudit: "lib/audit/write.ts" };
const NOT_FOLLOWED = new Set(["lib/audit/audited.ts#requirePermission"]);
/** Imported by a server action, changes nothing, and is not named as a read: why each needs no audit row. */
const EXCEPTIONS: Record<string, string> = {
  "lib/audit/audited.ts#requirePermission":
    "the role check on its own (replays/actions.ts checks before parsing input); it writes the refusal's audit row " +
    "itself, and the verb it guards (launchReplay, cancelReplayRun, resumeReplay) is audited",
  "lib/worker/settings.ts#workerSettingsFromEnv":
    "pure: builds the worker's lease length, retry policy and handlers from the Env for process-now",
  "lib/sources/from-env.ts#sourcesFromEnv":
    "a getter: this process's directory of sources (declared ones from the Env, the console's read from the table), changing nothing",
  "lib/format/words.ts#plural": "pure: a count with its noun in the right number, for an action's message",
  "lib/retention/erase-verify.ts#remainingWords":
    "pure: the words for where an erased subject's copies remain, for the erasure page's message",
  "lib/replay/form.ts#parseUtcDateTime": "pure: a form's date and time read as UTC, for the forward replay's window",
  "lib/replay/runs.ts#replayInputFromPreview":
    "pure: the real run's input read off a finished preview row the action already fetched",
};
const MAX_DEPTH = 3;

type Verdict =
  | { kind: "read" | "exception" | "not-a-function" }
  | { kind: "audited"; via: string[] }
  | { kind: "unaudited" }
  | { kind: "read-writes"; call: string };

interface Imported {
  /** lib/…/file.ts#name, where the function is declared. */
  id: string;
  /** The server action files that import it. */
  from: string[];
  verdict: Verdict;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");
const inLib = (file: string) => rel(file).startsWith("lib/");

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(ROOT, "tsconfig.json");
  const { config } = ts.readConfigFile(configPath, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configPath);
  return { ...parsed.options, noEmit: true, incremental: false };
}

/** A program over the given roots; `virtual` adds files that are not on disk (absolute path → text). */
function program(roots: string[], virtual: Record<string, string> = {}): ts.Program {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const { fileExists, directoryExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => f in virtual || fileExists.call(host, f);
  host.directoryExists = (d) =>
    Object.keys(virtual).some((f) => f.startsWith(`${d}/`)) || (directoryExists?.call(host, d) ?? true);
  host.readFile = (f) => virtual[f] ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = virtual[f];
    return text === undefined
      ? getSourceFile.call(host, f, lang, onError, create)
      : ts.createSourceFile(f, text, lang, true);
  };
  return ts.createProgram({ rootNames: [...roots, ...Object.keys(virtual)], options, host });
}

/** The declaration a name resolves to, through imports and re-exports. */
function resolve(checker: ts.TypeChecker, node: ts.Node): ts.Declaration | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.valueDeclaration ?? symbol?.declarations?.[0];
}

const declId = (decl: ts.Declaration) => {
  const name = ts.getNameOfDeclaration(decl);
  return `${rel(decl.getSourceFile().fileName)}#${name && ts.isIdentifier(name) ? name.text : "?"}`;
};

/** The function body a declaration stands for, if it is a function (declaration, or a const arrow/function). */
function functionOf(decl: ts.Declaration): ts.FunctionLikeDeclaration | undefined {
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) return decl.body ? decl : undefined;
  if (
    ts.isVariableDeclaration(decl) &&
    decl.initializer &&
    (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer))
  )
    return decl.initializer;
  return undefined;
}

function calls(fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
  const out: ts.CallExpression[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  if (fn.body) visit(fn.body);
  return out;
}

/** The call chain from `fn` to audited()/writeAudit(), through lib/ functions, or undefined. */
function auditPath(
  checker: ts.TypeChecker,
  fn: ts.FunctionLikeDeclaration,
  depth: number,
  seen: Set<ts.Node>,
): string[] | undefined {
  if (seen.has(fn)) return undefined;
  seen.add(fn);
  for (const call of calls(fn)) {
    const decl = resolve(checker, call.expression);
    if (!decl || !inLib(decl.getSourceFile().fileName)) continue;
    const id = declId(decl);
    const [file, name] = id.split("#") as [string, string];
    if (SINKS[name] === file) return [name];
    if (depth >= MAX_DEPTH || NOT_FOLLOWED.has(id)) continue;
    const callee = functionOf(decl);
    const rest = callee && auditPath(checker, callee, depth + 1, seen);
    if (rest) return [name, ...rest];
  }
  return undefined;
}

function verdict(checker: ts.TypeChecker, decl: ts.Declaration, exceptions: Record<string, string>): Verdict {
  const id = declId(decl);
  const name = id.split("#")[1]!;
  const fn = functionOf(decl);
  if (!fn) return { kind: "not-a-function" };
  if (id in exceptions) return { kind: "exception" };
  if (READ.test(name)) {
    const write = calls(fn).find(
      (c) =>
        ts.isPropertyAccessExpression(c.expression) && ["insert", "update", "delete"].includes(c.expression.name.text),
    );
    return write ? { kind: "read-writes", call: write.expression.getText() } : { kind: "read" };
  }
  const via = auditPath(checker, fn, 1, new Set());
  return via ? { kind: "audited", via } : { kind: "unaudited" };
}

const isServerActions = (sf: ts.SourceFile) =>
  sf.statements.some(
    (s) => ts.isExpressionStatement(s) && ts.isStringLiteral(s.expression) && s.expression.text === "use server",
  );

/** Every lib/ function the server actions among `files` import (value imports), with its verdict. */
function importedVerbs(
  prog: ts.Program,
  files: string[],
  exceptions: Record<string, string> = EXCEPTIONS,
): Map<string, Imported> {
  const checker = prog.getTypeChecker();
  const out = new Map<string, Imported>();
  for (const file of files) {
    const sf = prog.getSourceFile(file);
    if (!sf || !isServerActions(sf)) continue;
    for (const stmt of sf.statements) {
      if (!ts.isImportDeclaration(stmt) || stmt.importClause?.isTypeOnly) continue;
      const names: ts.Identifier[] = [];
      const bindings = stmt.importClause?.namedBindings;
      if (stmt.importClause?.name) names.push(stmt.importClause.name);
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) if (!el.isTypeOnly) names.push(el.name);
      if (bindings && ts.isNamespaceImport(bindings))
        throw new Error(
          `${rel(file)}: import * from ${stmt.moduleSpecifier.getText()}: name the verbs, so this test can see them`,
        );
      for (const local of names) {
        const decl = resolve(checker, local);
        if (!decl || !inLib(decl.getSourceFile().fileName)) continue;
        const id = declId(decl);
        const seen = out.get(id) ?? { id, from: [], verdict: verdict(checker, decl, exceptions) };
        seen.from.push(rel(file));
        out.set(id, seen);
      }
    }
  }
  return out;
}

function serverActionFiles(): string[] {
  return (readdirSync(path.join(ROOT, "app"), { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => path.join(ROOT, "app", f))
    .filter((f) => /^\s*(\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*["']use server["']/.test(readFileSync(f, "utf8")));
}

describe("every state-changing verb a server action reaches is audited", () => {
  const files = serverActionFiles();
  const verbs = importedVerbs(program(files), files);
  const by = (kind: Verdict["kind"]) =>
    [...verbs.values()].filter((v) => v.verdict.kind === kind).map((v) => v.id.split("#")[1]);

  it("finds the server actions and what they import from lib/", () => {
    expect(files.map(rel)).toEqual(
      expect.arrayContaining([
        "app/(console)/events/actions.ts",
        "app/(console)/users/actions.ts",
        "app/setup/actions.ts",
      ]),
    );
    expect(by("audited")).toEqual(
      expect.arrayContaining([
        "createUser",
        "setUserRole",
        "setUserDisabled",
        "changePassword",
        "requeueEvent",
        "processEventNow",
        "requeueMatching",
        "cancelReplayRun",
        "launchReplay",
        "resumeReplay",
        "completeSetup",
      ]),
    );
    expect(by("read")).toEqual(expect.arrayContaining(["getEnv", "countRequeueable", "getReplayRun"]));
  });

  it("each is a read, an exception with its reason, or calls audited()/writeAudit()", () => {
    const bad = [...verbs.values()]
      .filter((v) => v.verdict.kind === "unaudited" || v.verdict.kind === "read-writes")
      .map((v) => {
        const why =
          v.verdict.kind === "read-writes"
            ? `named as a read but calls ${v.verdict.call}`
            : "no call to audited() or writeAudit() in its body or the lib/ functions it calls";
        return `${v.id} (imported by ${v.from.join(", ")}): ${why}`;
      });
    expect(bad).toEqual([]);
  });

  it("lists no exception that no server action imports", () => {
    const used = new Set([...verbs.values()].filter((v) => v.verdict.kind === "exception").map((v) => v.id));
    expect(Object.keys(EXCEPTIONS).filter((id) => !used.has(id))).toEqual([]);
  });

  it("follows a verb through the lib/ functions it calls to its audit", () => {
    const table = [...verbs.values()]
      .filter((v) => v.verdict.kind === "audited")
      .map((v) => `${v.id} → ${(v.verdict as { via: string[] }).via.join(" → ")}`);
    expect(table).toContain("lib/replay/embedded.ts#launchReplay → startReplayRun → audited");
    expect(table).toContain("lib/auth/bootstrap.ts#completeSetup → writeAudit");
  });
});

describe("the audited-verbs check fires (virtual server action and verbs)", () => {
  const lib = path.join(ROOT, "lib/__audit_fixture__/verbs.ts");
  const action = path.join(ROOT, "app/__audit_fixture__/actions.ts");
  const virtual = {
    [lib]: `
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { auditLog } from "@/db/schema";
import { audited, requirePermission } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";

const entry = { action: "fixture", target: "fixture" };
export const FixtureInput = z.object({ id: z.number() });

export async function purgeEverything(db: Db): Promise<void> {
  await db.execute(sql\`truncate webhook_event\`);
}
export async function checkedOnly(db: Db, actor: Actor | undefined): Promise<void> {
  await requirePermission(db, actor, "events.requeue", entry);
  await db.execute(sql\`truncate webhook_event\`);
}
export async function renameThing(db: Db, actor: Actor | undefined): Promise<number> {
  return audited(db, actor, "events.requeue", entry, async () => 1);
}
async function auditedHelper(db: Db, actor: Actor | undefined): Promise<number> {
  return audited(db, actor, "events.requeue", entry, async () => 2);
}
export const delegating = (db: Db, actor: Actor | undefined) => auditedHelper(db, actor);
export async function getThing(db: Db) {
  return db.select().from(auditLog);
}
export async function getAndWrite(db: Db) {
  return db.delete(auditLog).where(sql\`true\`);
}
export function pureHelper(n: number): number {
  return n + 1;
}
`,
    [action]: `"use server";
import { checkedOnly, delegating, FixtureInput, getAndWrite, getThing, pureHelper, purgeEverything, renameThing } from "@/lib/__audit_fixture__/verbs";
export const all = [checkedOnly, delegating, FixtureInput, getAndWrite, getThing, pureHelper, purgeEverything, renameThing];
`,
  };
  const verbs = importedVerbs(program([], virtual), [action], { "lib/__audit_fixture__/verbs.ts#pureHelper": "pure" });
  const kinds = Object.fromEntries([...verbs.values()].map((v) => [v.id.split("#")[1], v.verdict.kind]));

  it("flags a verb with no audit, and one that only checks the role with requirePermission()", () => {
    expect(kinds.purgeEverything).toBe("unaudited");
    expect(kinds.checkedOnly).toBe("unaudited");
  });

  it("passes a verb that calls audited(), directly or through a lib/ helper", () => {
    expect(kinds.renameThing).toBe("audited");
    expect(kinds.delegating).toBe("audited");
  });

  it("passes a read by its name, flags a read that writes, and skips values and listed exceptions", () => {
    expect(kinds.getThing).toBe("read");
    expect(kinds.getAndWrite).toBe("read-writes");
    expect(kinds.FixtureInput).toBe("not-a-function");
    expect(kinds.pureHelper).toBe("exception");
  });
});
