/**
 * The key a test event carries at the top of its body (lib/sources/test-event.ts). It is read from the body
 * because every provider signs the body and few sign their headers: a header could be added to a captured
 * delivery to have a real event taken for a test and left unapplied; the body cannot be changed unseen.
 */
export const TEST_MARKER = "webhook_ledger_test";

/** What the marker holds: who sent it, and an id that makes each test body unique (a body can be a dedup key). */
export interface TestMarker {
  sent_by: "Webhook Ledger";
  id: string;
}

export const testMarker = (id: string): TestMarker => ({ sent_by: "Webhook Ledger", id });

/** Whether a verified payload is a test event: the marker is an object at the top level. */
export function isTestPayload(payload: unknown): boolean {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return false;
  const marker = Object.hasOwn(payload, TEST_MARKER) ? (payload as Record<string, unknown>)[TEST_MARKER] : undefined;
  return typeof marker === "object" && marker !== null && !Array.isArray(marker);
}
