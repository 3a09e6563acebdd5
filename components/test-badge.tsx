import { Badge } from "./ui/badge";

/** An event the console's test button sent: stored and verified like any other, never applied. */
export function TestBadge({ className }: { className?: string }) {
  return (
    <Badge
      tone="info"
      title="A test event sent from the console: verified and stored like any other, never applied"
      data-test-event=""
      className={className}
    >
      test
    </Badge>
  );
}
