import type { Metadata } from "next";
import Link from "next/link";
import { EVENT_STATUSES } from "@/lib/ledger/statuses";
import { countByStatus } from "@/lib/ledger/queries";
import { requirePage } from "../_lib/session";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const { db, actor } = await requirePage("events.read", "/");
  const counts = await countByStatus(db, actor);
  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        {EVENT_STATUSES.map((status) => (
          <Link key={status} href={`/events?status=${status}`} className="panel stat" style={{ color: "inherit" }}>
            <div className="label">{status}</div>
            <div className="value">{counts[status].toLocaleString("en")}</div>
          </Link>
        ))}
      </div>
    </>
  );
}
