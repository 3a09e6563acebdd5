import type { ReplayRun } from "@/db/schema/replay";

export const SOURCE_LABELS: Record<ReplayRun["source"], string> = { stripe: "Stripe", github: "GitHub", paddle: "Paddle" };

/** "2026-11-01 10:00:00" in UTC: the console shows every time in UTC, as the form takes it. */
export const utc = (d: Date) => d.toISOString().slice(0, 19).replace("T", " ");

export const STATUS_BADGE: Record<ReplayRun["status"], string> = { running: "processing", succeeded: "ok", failed: "dead", cancelled: "failed" };
