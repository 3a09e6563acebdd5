import type { TieResolution } from "@/db/schema";

/** How a tie between two equal versions was ordered, as every page says it. */
export const TIE_HOW: Record<TieResolution, string> = {
  chain: "by the events' own evidence",
  "provider-time": "by the provider's finer timestamp",
  "provider-api": "from the provider's API",
  "by-hand": "by a person",
};

export const tieResolvedWords = (r: TieResolution): string => `tie resolved ${TIE_HOW[r]}`;
