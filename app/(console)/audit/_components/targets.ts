import { isSourceSlug } from "@/lib/ledger/params";

export interface TargetView {
  /** The kind prefix as stored ("event:", "user:"…), shown muted before the rest. */
  prefix: string;
  rest: string;
  /** Where the thing lives in the console, when it has a page this viewer may open. */
  href?: string;
}

/**
 * An audit row's target (`kind:rest`, written by each verb) as a link to its page. Subjects link nowhere:
 * the row already shows all the log keeps (an erasure reference or a hash), and nothing else is looked up.
 */
export function describeTarget(target: string, opts: { canManageUsers: boolean }): TargetView {
  const colon = target.indexOf(":");
  if (colon <= 0) return { prefix: "", rest: target };
  const kind = target.slice(0, colon);
  const rest = target.slice(colon + 1);
  const view = { prefix: `${kind}:`, rest };
  switch (kind) {
    case "event": {
      const slash = rest.indexOf("/");
      const source = rest.slice(0, slash);
      const id = rest.slice(slash + 1);
      if (slash <= 0 || !id || !isSourceSlug(source)) return view;
      return { ...view, href: `/events/${source}/${encodeURIComponent(id)}` };
    }
    case "source":
      return isSourceSlug(rest) ? { ...view, href: `/sources/${rest}` } : view;
    case "user":
      return opts.canManageUsers ? { ...view, href: "/users" } : view;
    case "replay":
      return { ...view, href: "/replays" };
    case "alert-rule":
      return { ...view, href: "/alerts" };
    default:
      return view;
  }
}
