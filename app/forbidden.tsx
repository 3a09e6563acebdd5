import Link from "@/components/link";
import { Card, CardContent } from "@/components/ui/card";

export default function Forbidden() {
  return (
    <main className="flex min-h-svh items-center justify-center p-4">
      <Card className="w-full max-w-sm">
        <CardContent className="flex flex-col gap-3">
          <h1 className="text-lg font-semibold">Not allowed</h1>
          <p className="text-sm text-muted-foreground">
            Your role does not include this page. Ask an admin if you need it.
          </p>
          <Link className="text-sm text-primary hover:underline" href="/">
            Back to the overview
          </Link>
        </CardContent>
      </Card>
    </main>
  );
}
