import Link from "next/link";
import { EVENT_STATUSES } from "@/lib/ledger/statuses";
import { one, type SearchParams } from "./params";

/** A plain GET form: the filter lives in the URL, works without JavaScript, and every view is a link. */
export function EventsToolbar({ sp, sources }: { sp: SearchParams; sources: readonly string[] }) {
  const sort = one(sp.sort);
  return (
    <form className="toolbar" action="/events" method="get" role="search">
      <div className="row">
        <label className="grow">
          Search
          <input
            name="q"
            type="search"
            defaultValue={one(sp.q) ?? ""}
            placeholder="event id, cus_…, sub_…, email"
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <div className="toolbar-buttons">
          <button type="submit">Apply</button>
          <Link className="button secondary" href="/events">
            Reset
          </Link>
        </div>
      </div>
      <div className="row">
        <label>
          Source
          <select name="source" defaultValue={one(sp.source) ?? ""}>
            <option value="">all</option>
            {sources.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" defaultValue={one(sp.status) ?? ""}>
            <option value="">all</option>
            {EVENT_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Type
          <input
            name="type"
            defaultValue={one(sp.type) ?? ""}
            placeholder="invoice.paid"
            spellCheck={false}
            size={18}
          />
        </label>
        <label>
          From (UTC)
          <input name="from" type="datetime-local" defaultValue={one(sp.from) ?? ""} />
        </label>
        <label>
          To (UTC)
          <input name="to" type="datetime-local" defaultValue={one(sp.to) ?? ""} />
        </label>
      </div>
      {sort && <input type="hidden" name="sort" value={sort} />}
    </form>
  );
}
