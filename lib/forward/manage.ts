import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { DESTINATION_NAME, DESTINATION_STATES, type DestinationState } from "@/db/schema/forward";
import { audited } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { ConflictError, NotFoundError, parseInput } from "@/lib/errors";
import type { SecretBox } from "@/lib/sources/secret-box";
import { DestinationFields } from "./destinations";

/** What every console verb on destinations and forwards needs besides its input. */
export interface ForwardContext {
  db: Db;
  actor: Actor | undefined;
  /** Absent: LEDGER_SECRET_KEY is not set, and no console destination can keep a secret. */
  box: SecretBox | undefined;
  /** Declared destinations' secrets live in variables (a test delivery signs with them). */
  envVar: (name: string) => string | undefined;
  /** FORWARD_ALLOW_PRIVATE: a test delivery obeys the same address rules as the forwarder. */
  allowPrivate: boolean;
}

export const DestinationName = z
  .string()
  .trim()
  .regex(DESTINATION_NAME, "A destination's name: lowercase letters, digits and dashes, at most 63");

/** A console destination's settings; its state changes only through setDestinationState. */
export const CreateDestinationInput = DestinationFields.omit({ state: true });
export type CreateDestinationInput = z.input<typeof CreateDestinationInput>;
/** Every setting, replaced as a whole (a filter left out is "every source" or "every type" again). */
export const UpdateDestinationInput = CreateDestinationInput;
export type UpdateDestinationInput = z.input<typeof UpdateDestinationInput>;

export const SetDestinationStateInput = z.object({ name: DestinationName, state: z.enum(DESTINATION_STATES) });
export type SetDestinationStateInput = z.input<typeof SetDestinationStateInput>;

/** The rotation's overlap: the old secret keeps signing beside the new one while the team's side switches. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const RotateDestinationSecretInput = z.object({
  name: DestinationName,
  overlapHours: z.coerce
    .number()
    .int("Give the overlap in whole hours")
    .min(0, "The overlap cannot be negative")
    .max(720, "The overlap is at most 720 hours (30 days)")
    .default(DEFAULT_OVERLAP_HOURS),
});
export type RotateDestinationSecretInput = z.input<typeof RotateDestinationSecretInput>;

/** A new signing secret: its plaintext returned this once (the console shows it once), then its fingerprint only. */
export interface IssuedDestinationSecret {
  name: string;
  secretId: string;
  secret: string;
  fingerprint: string;
  /** When the secrets it replaces stop signing (a rotation), or null (a new destination). */
  othersExpireAt: Date | null;
}

/** A Standard Webhooks secret, as the team's side expects it: whsec_ and 32 random bytes in base64. */
export function generateDestinationSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function requireBox(box: SecretBox | undefined): SecretBox {
  if (!box)
    throw new ConflictError(
      "LEDGER_SECRET_KEY is not set, so a destination's secret cannot be stored: set it (openssl rand -hex 32) and restart",
    );
  return box;
}

interface LockedDestination {
  name: string;
  state: DestinationState;
  origin: "file" | "console";
  secret_env: string | null;
}

/**
 * The destination's row, locked for a change to it (`lock: false` when only its forwards change: the forwarder
 * writes its breaker there). Read through `tx`: PGlite has one connection.
 */
export async function lockDestination(tx: Tx, name: string, opts: { lock?: boolean } = {}): Promise<LockedDestination> {
  const [row] = rowsOf<LockedDestination>(
    await tx.execute(sql`
      select name, state, origin, secret_env from forward_destination where name = ${name}
      ${opts.lock === false ? sql`` : sql`for update`}`),
  );
  if (!row) throw new NotFoundError(`no destination "${name}"`);
  return row;
}

/** Declared destinations belong to the deploy: the console pauses and resumes them, nothing else. */
function consoleOnly(d: LockedDestination, what: string): void {
  if (d.origin === "file")
    throw new ConflictError(
      `destination "${d.name}" is declared in DESTINATIONS_FILE: ${what} there; the console only pauses and resumes it`,
    );
}

async function insertSecret(tx: Tx, box: SecretBox, name: string, plaintext: string) {
  const id = randomUUID();
  const fingerprint = box.fingerprint(plaintext);
  await tx.execute(sql`
    insert into forward_destination_secret (id, destination, sealed, fingerprint)
    values (${id}, ${name}, ${box.seal(plaintext, `destination:${name}:${id}`)}, ${fingerprint})`);
  return { id, fingerprint };
}

const list = (v: string[] | undefined) => (v ? pgArray(v, "text") : null);
/** Where the forwards go, for the audit row: the host only (a URL's path or query may carry a token). */
const hostOf = (url: string) => new URL(url).host;

export async function createDestination(
  ctx: ForwardContext,
  input: CreateDestinationInput,
): Promise<IssuedDestinationSecret> {
  const entry = { action: "destinations.create", target: `destination:${String(input.name ?? "").slice(0, 64)}` };
  return audited(ctx.db, ctx.actor, "destinations.manage", entry, async (tx, _actor, current) => {
    const i = parseInput(CreateDestinationInput, input);
    const box = requireBox(ctx.box);
    const inserted = rowsOf<{ name: string }>(
      await tx.execute(sql`
        insert into forward_destination (name, url, mode, format, sources, types, max_in_flight, timeout_ms,
          rate_per_second, max_attempts, origin)
        values (${i.name}, ${i.url}, ${i.mode}, ${i.format}, ${list(i.sources)}, ${list(i.types)}, ${i.maxInFlight},
          ${i.timeoutMs}, ${i.ratePerSecond ?? null}, ${i.maxAttempts}, 'console')
        on conflict (name) do nothing
        returning name`),
    );
    if (inserted.length === 0) throw new ConflictError(`destination "${i.name}" already exists`);
    const secret = generateDestinationSecret();
    const { id, fingerprint } = await insertSecret(tx, box, i.name, secret);
    current.detail = { host: hostOf(i.url), mode: i.mode, format: i.format, fingerprint };
    return { name: i.name, secretId: id, secret, fingerprint, othersExpireAt: null };
  });
}

export async function updateDestination(ctx: ForwardContext, input: UpdateDestinationInput): Promise<{ name: string }> {
  const entry = { action: "destinations.update", target: `destination:${String(input.name ?? "").slice(0, 64)}` };
  return audited(ctx.db, ctx.actor, "destinations.manage", entry, async (tx, _actor, current) => {
    const i = parseInput(UpdateDestinationInput, input);
    consoleOnly(await lockDestination(tx, i.name), "change its settings");
    await tx.execute(sql`
      update forward_destination set url = ${i.url}, mode = ${i.mode}, format = ${i.format},
        sources = ${list(i.sources)}, types = ${list(i.types)}, max_in_flight = ${i.maxInFlight},
        timeout_ms = ${i.timeoutMs}, rate_per_second = ${i.ratePerSecond ?? null}, max_attempts = ${i.maxAttempts},
        updated_at = now()
      where name = ${i.name}`);
    current.detail = {
      host: hostOf(i.url),
      mode: i.mode,
      format: i.format,
      sources: i.sources ?? null,
      types: i.types ?? null,
    };
    return { name: i.name };
  });
}

/**
 * active | paused (forwards are still queued and wait) | disabled (nothing is queued for it). A declared
 * destination is only paused and resumed here: the file says whether it exists.
 */
export async function setDestinationState(
  ctx: ForwardContext,
  input: SetDestinationStateInput,
): Promise<{ state: DestinationState }> {
  const entry = { action: "destinations.set-state", target: `destination:${String(input.name ?? "").slice(0, 64)}` };
  return audited(ctx.db, ctx.actor, "destinations.manage", entry, async (tx, _actor, current) => {
    const i = parseInput(SetDestinationStateInput, input);
    const d = await lockDestination(tx, i.name);
    if (d.origin === "file" && (i.state === "disabled" || d.state === "disabled"))
      consoleOnly(d, i.state === "disabled" ? "disable it" : "enable it");
    await tx.execute(sql`update forward_destination set state = ${i.state}, updated_at = now() where name = ${i.name}`);
    current.detail = { from: d.state, to: i.state };
    return { state: i.state };
  });
}

/**
 * A new secret, shown once. The ones there now keep signing for `overlapHours` (the forwarder signs with every
 * unexpired secret, so the team's side verifies with either while it switches), then stop; 0 stops them now.
 */
export async function rotateDestinationSecret(
  ctx: ForwardContext,
  input: RotateDestinationSecretInput,
): Promise<IssuedDestinationSecret> {
  const entry = {
    action: "destinations.rotate-secret",
    target: `destination:${String(input.name ?? "").slice(0, 64)}`,
  };
  return audited(ctx.db, ctx.actor, "destinations.manage", entry, async (tx, _actor, current) => {
    const i = parseInput(RotateDestinationSecretInput, input);
    const d = await lockDestination(tx, i.name);
    if (d.origin === "file") consoleOnly(d, `rotate its secret in ${d.secret_env ?? "its variable"}`);
    const box = requireBox(ctx.box);
    const secret = generateDestinationSecret();
    const { id, fingerprint } = await insertSecret(tx, box, i.name, secret);
    // Only shortens: a secret already due to stop sooner keeps its end.
    const [until] = rowsOf<{ at: string | Date; n: number }>(
      await tx.execute(sql`
        with until as (select now() + ${i.overlapHours} * interval '1 hour' as at),
        retired as (
          update forward_destination_secret s set expires_at = (select at from until)
          where s.destination = ${i.name} and s.id <> ${id}
            and (s.expires_at is null or s.expires_at > (select at from until))
          returning 1
        )
        select (select at from until) as at, (select count(*)::int from retired) as n`),
    );
    const othersExpireAt = new Date(until!.at);
    current.detail = { fingerprint, overlapHours: i.overlapHours, retiring: Number(until!.n) };
    return { name: i.name, secretId: id, secret, fingerprint, othersExpireAt };
  });
}
