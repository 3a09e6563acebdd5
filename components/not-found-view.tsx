import { SearchIcon } from "lucide-react";
import Link from "@/components/link";
import { headers } from "next/headers";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { describeMissing } from "./missing-words";

/**
 * The console's 404: what the address asked for, and a search of the ledger. A server component: the path
 * comes from proxy.ts (x-return-to), so no script is sent with every page for it.
 */
export async function NotFoundView() {
  // The path without its query (a "?" inside the path arrives encoded, so the first one starts the query).
  const m = describeMissing(((await headers()).get("x-return-to") ?? "/").split("?")[0]!);
  return (
    <div className="flex max-w-2xl flex-col gap-4" data-not-found="">
      <div className="flex flex-col gap-1">
        <p className="text-xs font-medium text-muted-foreground">Not found (404)</p>
        <h1 className="text-xl font-semibold tracking-tight [overflow-wrap:anywhere]">{m.title}</h1>
        <p className="text-sm text-muted-foreground">{m.detail}</p>
      </div>
      <form action="/events" method="get" role="search" aria-label="Search the ledger" className="flex gap-2">
        <Input
          type="search"
          name="q"
          defaultValue={m.query ?? ""}
          aria-label="Search the ledger"
          placeholder="event id, customer id or its start, email, name"
          autoComplete="off"
          spellCheck={false}
        />
        <Button type="submit">
          <SearchIcon aria-hidden />
          Search
        </Button>
      </form>
      {m.list && (
        <p className="text-sm">
          <Link className="text-primary underline-offset-2 hover:underline" href={m.list.href}>
            {m.list.label}
          </Link>
        </p>
      )}
    </div>
  );
}
