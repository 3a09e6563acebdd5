/** What a console address that answered 404 was asking for, in words, and what to search the ledger for instead. */
export interface Missing {
  title: string;
  detail: string;
  /** Prefills the search: the id the address named. */
  query?: string;
  /** Where the list of such things is. */
  list?: { href: string; label: string };
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Reads the path as the console's pages build it (lib/ledger/params, events/_components/links.ts). */
export function describeMissing(pathname: string): Missing {
  const parts = pathname.split("/").filter(Boolean).map(decode);
  const [top, ...rest] = parts;
  if (top === "events" && rest.length >= 2) {
    const [source, ...id] = rest;
    const eventId = id.join("/");
    return {
      title: `No event ${source}/${eventId}`,
      detail:
        `The ledger has no event with this id from ${source}. It may have been pruned by retention or erased, ` +
        "or the link is mistyped; a search finds the events that mention the id.",
      query: eventId,
      list: { href: "/events", label: "All events" },
    };
  }
  if (top === "entities" && rest.length === 3) {
    const [source, type, id] = rest as [string, string, string];
    return {
      title: `No ${type} ${id} from ${source}`,
      detail: `No event from ${source} has named this ${type}, so it has no timeline here.`,
      query: id,
      list: { href: "/events", label: "All events" },
    };
  }
  if (top === "sources" && rest.length === 1) {
    return {
      title: `No source ${rest[0]}`,
      detail: "No source with this name is declared for this deploy or added in the console.",
      list: { href: "/sources", label: "All sources" },
    };
  }
  const path = `/${parts.join("/")}`;
  return {
    title: `No page at ${path}`,
    detail: "Nothing in the console lives at this address.",
    list: { href: "/", label: "The overview" },
  };
}
