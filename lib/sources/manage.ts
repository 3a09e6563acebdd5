import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "@/db/client";
import { SOURCE_SLUG, SOURCE_STATES, webhookSource, webhookSourceSecret } from "@/db/schema/sources";
import { audited } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { ConflictError, NotFoundError, parseInput, ValidationError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import { PROVIDER_KINDS, type ProviderKind } from "@/lib/providers/types";
import { optionsMessage } from "./declared";
import type { SourceDirectory } from "./directory";
import type { SecretBox } from "./secret-box";
import { secretFormatProblem } from "./secret-format";
import { originLabel } from "./types";

/** What every managing verb needs besides its input. */
export interface ManageContext {
  db: Db;
  actor: Actor | undefined;
  sources: SourceDirectory;
  /** Absent: LEDGER_SECRET_KEY is not set, and no secret can be stored. */
  box: SecretBox | undefined;
}

const Slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(SOURCE_SLUG, "Use lowercase letters, digits and dashes (at most 63), starting with a letter or digit");

/** A pasted secret (the provider's), or empty: one is generated and shown once. */
const SecretText = z
  .string()
  .trim()
  .max(512, "A secret is at most 512 characters")
  .refine((v) => !/[\s,]/.test(v), "A secret has no spaces or commas")
  .optional()
  .transform((v) => (v ? v : undefined));

export const CreateSourceInput = z.object({
  slug: Slug,
  provider: z.enum(PROVIDER_KINDS, { error: "Choose a provider kind" }),
  name: z.string().trim().min(1, "Give the source a name").max(100),
  toleranceSeconds: z.coerce.number().int().min(1).max(86_400).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  secret: SecretText,
});
export type CreateSourceInput = z.input<typeof CreateSourceInput>;

export const AddSecretInput = z.object({
  slug: Slug,
  secret: SecretText,
  /** When the secrets already there stop verifying: the rotation's overlap. Absent: they keep verifying. */
  retireOthersAt: z.coerce.date().optional(),
});
export type AddSecretInput = z.input<typeof AddSecretInput>;

export const ExpireSecretInput = z.object({
  slug: Slug,
  secretId: z.uuid(),
  /** Absent: now. */
  at: z.coerce.date().optional(),
});
export type ExpireSecretInput = z.input<typeof ExpireSecretInput>;

export const SetStateInput = z.object({ slug: Slug, state: z.enum(SOURCE_STATES) });
export type SetStateInput = z.input<typeof SetStateInput>;

/** The new secret's plaintext, returned once (the console shows it once), and its fingerprint. */
export interface IssuedSecret {
  slug: string;
  secretId: string;
  secret: string;
  fingerprint: string;
  generated: boolean;
}

/** A secret in the shape the kind expects (Standard Webhooks: whsec_ + base64 of 32 bytes). */
export function generateSecret(kind: ProviderKind): string {
  const bytes = randomBytes(32);
  return kind === "standard" ? `whsec_${bytes.toString("base64")}` : bytes.toString("hex");
}

/** A pasted secret in its kind's format (a generated one is by construction), else a message naming the format. */
function checkPasted(kind: ProviderKind, secret: string | undefined): void {
  const problem = secret === undefined ? undefined : secretFormatProblem(kind, secret);
  if (problem) throw new ValidationError(`Secret: ${problem}`, "secret");
}

/** The directory reads the table again only once the change has committed (else it could cache the old row). */
async function afterCommit<T>(ctx: ManageContext, change: Promise<T>): Promise<T> {
  try {
    return await change;
  } finally {
    ctx.sources.invalidate();
  }
}

function requireBox(box: SecretBox | undefined): SecretBox {
  if (!box)
    throw new ConflictError(
      "LEDGER_SECRET_KEY is not set, so secrets cannot be stored: set it (openssl rand -hex 32) and restart",
    );
  return box;
}

/**
 * Declared sources belong to the deploy: the console shows them, it does not change them. Reads only
 * through `tx`: on PGlite's one connection a read through the pool would wait on this transaction.
 */
async function consoleSource(ctx: ManageContext, tx: Tx, slug: string) {
  const declared = ctx.sources.declared(slug);
  if (declared)
    throw new ConflictError(`source "${slug}" is ${originLabel(declared.origin)}: change it there, not in the console`);
  const [row] = await tx.select().from(webhookSource).where(eq(webhookSource.slug, slug)).for("update");
  if (!row) throw new NotFoundError(`no source "${slug}"`);
  return row;
}

async function insertSecret(tx: Tx, box: SecretBox, slug: string, plaintext: string, actor: Actor) {
  const id = randomUUID();
  const fingerprint = box.fingerprint(plaintext);
  await tx.insert(webhookSourceSecret).values({
    id,
    source: slug,
    sealed: box.seal(plaintext, `${slug}/${id}`),
    fingerprint,
    createdBy: actor.email,
  });
  return { id, fingerprint };
}

export async function createSource(ctx: ManageContext, input: CreateSourceInput): Promise<IssuedSecret> {
  const entry = { action: "sources.create", target: `source:${String(input.slug ?? "")}` };
  return afterCommit(
    ctx,
    audited(ctx.db, ctx.actor, "sources.manage", entry, async (tx, actor, current) => {
      const i = parseInput(CreateSourceInput, input);
      current.target = `source:${i.slug}`;
      const box = requireBox(ctx.box);
      const provider = PROVIDERS[i.provider];
      checkPasted(i.provider, i.secret);
      let options: unknown = {};
      try {
        options = provider.parseOptions ? provider.parseOptions(i.options ?? {}) : {};
      } catch (err) {
        throw new ValidationError(`options: ${optionsMessage(err)}`, "options");
      }
      if (!provider.parseOptions && i.options && Object.keys(i.options).length > 0)
        throw new ValidationError(`the ${i.provider} kind takes no options`, "options");
      const declared = ctx.sources.declared(i.slug);
      if (declared) throw new ConflictError(`source "${i.slug}" already exists (${originLabel(declared.origin)})`);
      const inserted = await tx
        .insert(webhookSource)
        .values({
          slug: i.slug,
          provider: i.provider,
          name: i.name,
          toleranceSeconds: i.toleranceSeconds,
          options: options as Record<string, unknown>,
          createdBy: actor.email,
        })
        .onConflictDoNothing()
        .returning({ slug: webhookSource.slug });
      if (inserted.length === 0) throw new ConflictError(`source "${i.slug}" already exists`);
      const secret = i.secret ?? generateSecret(i.provider);
      const { id, fingerprint } = await insertSecret(tx, box, i.slug, secret, actor);
      current.detail = { provider: i.provider, name: i.name, fingerprint, generated: !i.secret };
      return { slug: i.slug, secretId: id, secret, fingerprint, generated: !i.secret };
    }),
  );
}

/**
 * Rotation: add the new secret; the ones already there keep verifying until `retireOthersAt`
 * (the overlap while the provider switches), then stop. Without it they keep verifying.
 */
export async function addSourceSecret(ctx: ManageContext, input: AddSecretInput): Promise<IssuedSecret> {
  const entry = { action: "sources.add-secret", target: `source:${String(input.slug ?? "")}` };
  return afterCommit(
    ctx,
    audited(ctx.db, ctx.actor, "sources.manage", entry, async (tx, actor, current) => {
      const i = parseInput(AddSecretInput, input);
      current.target = `source:${i.slug}`;
      const box = requireBox(ctx.box);
      const row = await consoleSource(ctx, tx, i.slug);
      const now = new Date();
      if (i.retireOthersAt && i.retireOthersAt.getTime() < now.getTime() - 60_000)
        throw new ValidationError("The old secrets' end must not be in the past", "retireOthersAt");
      checkPasted(row.provider as ProviderKind, i.secret);
      const secret = i.secret ?? generateSecret(row.provider as ProviderKind);
      const { id, fingerprint } = await insertSecret(tx, box, i.slug, secret, actor);
      let retired = 0;
      if (i.retireOthersAt) {
        // Only shortens: a secret already due to stop earlier keeps its earlier end.
        const rows = await tx
          .update(webhookSourceSecret)
          .set({ expiresAt: i.retireOthersAt })
          .where(
            and(
              eq(webhookSourceSecret.source, i.slug),
              sql`${webhookSourceSecret.id} <> ${id}`,
              or(isNull(webhookSourceSecret.expiresAt), gt(webhookSourceSecret.expiresAt, i.retireOthersAt)),
            ),
          )
          .returning({ id: webhookSourceSecret.id });
        retired = rows.length;
      }
      current.detail = {
        fingerprint,
        generated: !i.secret,
        retireOthersAt: i.retireOthersAt?.toISOString() ?? null,
        retiring: retired,
      };
      return { slug: i.slug, secretId: id, secret, fingerprint, generated: !i.secret };
    }),
  );
}

/** A secret stops verifying at `at` (now by default). The last active one may go too: then every delivery is refused. */
export async function expireSourceSecret(ctx: ManageContext, input: ExpireSecretInput): Promise<{ expiresAt: Date }> {
  const entry = { action: "sources.expire-secret", target: `source:${String(input.slug ?? "")}` };
  return afterCommit(
    ctx,
    audited(ctx.db, ctx.actor, "sources.manage", entry, async (tx, _actor, current) => {
      const i = parseInput(ExpireSecretInput, input);
      current.target = `source:${i.slug}`;
      await consoleSource(ctx, tx, i.slug);
      const at = i.at ?? new Date();
      const [row] = await tx
        .update(webhookSourceSecret)
        .set({ expiresAt: at })
        .where(and(eq(webhookSourceSecret.source, i.slug), eq(webhookSourceSecret.id, i.secretId)))
        .returning({ fingerprint: webhookSourceSecret.fingerprint });
      if (!row) throw new NotFoundError(`source "${i.slug}" has no secret ${i.secretId}`);
      current.detail = { fingerprint: row.fingerprint, expiresAt: at.toISOString() };
      return { expiresAt: at };
    }),
  );
}

/** active | paused (503: the provider keeps retrying) | disabled (404). */
export async function setSourceState(ctx: ManageContext, input: SetStateInput): Promise<{ state: string }> {
  const entry = { action: "sources.set-state", target: `source:${String(input.slug ?? "")}` };
  return afterCommit(
    ctx,
    audited(ctx.db, ctx.actor, "sources.manage", entry, async (tx, _actor, current) => {
      const i = parseInput(SetStateInput, input);
      current.target = `source:${i.slug}`;
      const row = await consoleSource(ctx, tx, i.slug);
      await tx
        .update(webhookSource)
        .set({ state: i.state, updatedAt: new Date() })
        .where(eq(webhookSource.slug, i.slug));
      current.detail = { from: row.state, to: i.state };
      return { state: i.state };
    }),
  );
}
