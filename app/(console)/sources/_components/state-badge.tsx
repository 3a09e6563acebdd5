import { Badge } from "@/components/ui/badge";
import type { SourceState } from "@/db/schema/sources";
import { STATE_MEANING, STATE_TONE } from "./format";

export function StateBadge({ state, testId }: { state: SourceState; testId?: string }) {
  return (
    <Badge tone={STATE_TONE[state]} title={STATE_MEANING[state]} data-state={state} data-testid={testId}>
      {state}
    </Badge>
  );
}
