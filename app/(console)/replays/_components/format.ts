import type { ReplayRun } from "@/db/schema/replay";

export const SOURCE_LABELS: Record<ReplayRun["source"], string> = {
  stripe: "Stripe",
  github: "GitHub",
  paddle: "Paddle",
};

export const STATUS_BADGE: Record<ReplayRun["status"], string> = {
  running: "processing",
  succeeded: "ok",
  failed: "dead",
  cancelled: "failed",
};
