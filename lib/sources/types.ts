import type { SourceState } from "@/db/schema/sources";
import type { ProviderKind } from "@/lib/providers/types";

export interface SourceSecret {
  /** The plaintext: never logged, never rendered (the console shows `fingerprint`). */
  value: string;
  /** Names the secret without revealing it (lib/sources/secret-box.ts). */
  fingerprint: string;
  /** Console secrets only: the row, its creation and its expiry. */
  id?: string;
  createdAt?: Date;
  /** Past it the secret no longer verifies (a rotation's overlap ends). */
  expiresAt?: Date;
}

/** Where a source is configured: declared by the deploy (read-only in the console) or managed in it. */
export type SourceOrigin =
  | { kind: "env"; variable: string }
  | { kind: "file"; path: string; index: number; secretsEnv: string }
  | { kind: "console" };

/** A source (one endpoint, /api/webhooks/{slug}) as the receiver, the worker and the console use it. */
export interface ResolvedSource {
  slug: string;
  provider: ProviderKind;
  name: string;
  state: SourceState;
  /** Undefined: WEBHOOK_TOLERANCE_SECONDS. */
  toleranceSeconds?: number;
  /** Already checked by the provider's parseOptions. */
  options: unknown;
  secrets: readonly SourceSecret[];
  origin: SourceOrigin;
  /** The console's secrets could not be unsealed (LEDGER_SECRET_KEY missing or another key): said, not guessed. */
  unsealError?: string;
}

/** The secrets that verify at `nowMs`: every one without an expiry or not yet past it. */
export function activeSecrets(source: ResolvedSource, nowMs: number): string[] {
  return source.secrets.filter((s) => !s.expiresAt || s.expiresAt.getTime() > nowMs).map((s) => s.value);
}

export function originLabel(origin: SourceOrigin): string {
  switch (origin.kind) {
    case "env":
      return `declared by the environment (${origin.variable})`;
    case "file":
      return `declared in SOURCES_FILE ${origin.path}, entry ${origin.index + 1} (secrets from ${origin.secretsEnv})`;
    case "console":
      return "managed in the console";
  }
}
