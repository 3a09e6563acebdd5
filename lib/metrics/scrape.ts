import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * Whether a scrape may read the metrics: always when no METRICS_TOKEN is set, else only with
 * `Authorization: Bearer <token>`. Compared as SHA-256 digests in constant time, so neither the
 * token's bytes nor its length leak through timing.
 */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  return timingSafeEqual(digest(m?.[1] ?? ""), digest(token)) && m !== null;
}
