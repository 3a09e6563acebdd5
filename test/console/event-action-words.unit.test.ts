import { describe, expect, it } from "vitest";
import { processedText, requeuedText } from "@/app/(console)/events/_components/action-words";
import { describeStatus } from "@/components/event-status";

describe("the words an event action answers with", () => {
  it("[event page] a requeue's result says the status the page then shows, not the ledger's code", () => {
    expect(requeuedText("claimed")).toBe("Requeued: waiting for a worker.");
    expect(requeuedText("claimed")).toContain(describeStatus({ status: "claimed" }).label);
    expect(requeuedText("claimed")).not.toContain("claimed");
  });

  it("[event page] process now says what the attempt did in the page's words", () => {
    expect(processedText({ outcome: "settled" })).toBe("Processed: applied.");
    expect(processedText({ outcome: "stale" })).toBe("Processed: stale, recorded and not applied.");
    expect(processedText({ outcome: "ignored" })).toBe("Processed: ignored: no handler.");
    expect(processedText({ outcome: "failed", error: "HTTP 503" })).toBe("Processed: failed, retrying (HTTP 503).");
    expect(processedText({ outcome: "dead", error: "permanent: no items" })).toBe(
      "Processed: failed, dead (permanent: no items).",
    );
    expect(processedText({ outcome: "lease-lost" })).toBe("Not processed: another worker holds it.");
  });
});
