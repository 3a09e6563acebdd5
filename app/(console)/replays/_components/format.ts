import type { ReplayRun } from "@/db/schema/replay";
import type { BadgeTone } from "@/components/ui/badge";

export const SOURCE_LABELS: Record<ReplayRun["source"], string> = {
  stripe: "Stripe",
  github: "GitHub",
  paddle: "Paddle",
};

/** A run's state in words: a preview counts, a replay brings events in. */
export function statusWords(run: Pick<ReplayRun, "status" | "dryRun">): { word: string; tone: BadgeTone } {
  switch (run.status) {
    case "running":
      return { word: run.dryRun ? "counting" : "running", tone: "info" };
    case "succeeded":
      return { word: run.dryRun ? "counted" : "finished", tone: "success" };
    case "failed":
      return { word: "failed", tone: "danger" };
    case "cancelled":
      return { word: "cancelled", tone: "neutral" };
  }
}

export const n = (v: number) => v.toLocaleString("en");
