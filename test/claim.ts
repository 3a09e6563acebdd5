import type { Db } from "@/db/client";
import { claimEvents, parseClaim, type ClaimInput, type ClaimResult } from "@/lib/intake/claim";

/** Tests' edge: parse one claim and claim it alone (the receiver batches; tests mostly need one). */
export async function claimOne(db: Db, input: ClaimInput): Promise<ClaimResult> {
  const [result] = await claimEvents(db, [parseClaim(input)]);
  return result!;
}
