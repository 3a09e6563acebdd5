import type { SourceState } from "@/db/schema/sources";
import { STATE_BADGE, STATE_MEANING } from "./format";

export function StateBadge({ state }: { state: SourceState }) {
  return (
    <span className={`badge ${STATE_BADGE[state]}`} title={STATE_MEANING[state]} data-state={state}>
      {state}
    </span>
  );
}
