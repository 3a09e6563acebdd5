import { LEGACY_KINDS, type LegacyKind } from "@/lib/sources/declared";
import { staticSourceDirectory, type SourceDirectory } from "@/lib/sources/directory";
import { unkeyedFingerprint } from "@/lib/sources/secret-box";
import type { ResolvedSource } from "@/lib/sources/types";
import type { ProviderKind } from "@/lib/providers/types";
import { TEST_SECRETS } from "./sign";

/** A source as a deploy would declare it, with these secrets (each may expire). */
export function testSource(
  slug: string,
  provider: ProviderKind,
  secrets: readonly (string | { value: string; expiresAt?: Date })[],
  over: Partial<ResolvedSource> = {},
): ResolvedSource {
  return {
    slug,
    provider,
    name: slug,
    state: "active",
    options: {},
    secrets: secrets.map((s) => {
      const { value, expiresAt } = typeof s === "string" ? { value: s, expiresAt: undefined } : s;
      return { value, expiresAt, fingerprint: unkeyedFingerprint(value) };
    }),
    origin: { kind: "env", variable: `${slug.toUpperCase()}_WEBHOOK_SECRET` },
    ...over,
  };
}

/**
 * The six legacy sources (slug = kind) with the tests' secrets; `secrets` replaces a kind's list
 * ([] leaves that source undeclared), `extra` adds sources.
 */
export function testSources(
  secrets: Partial<Record<LegacyKind, readonly string[]>> = {},
  extra: readonly ResolvedSource[] = [],
): SourceDirectory {
  const legacy = LEGACY_KINDS.flatMap((kind) => {
    const list = secrets[kind] ?? [TEST_SECRETS[kind]];
    return list.length > 0 ? [testSource(kind, kind, list)] : [];
  });
  return staticSourceDirectory([...legacy, ...extra]);
}
