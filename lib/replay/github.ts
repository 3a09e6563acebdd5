import { idAt, isObject } from "@/lib/providers/types";
import { fetchWithRetry, getJson, ReplayHttpError } from "./http";
import { inWindow, type ListerDeps, type ReplayItem, type ReplayLister, type ReplayWindow } from "./types";

export interface GithubListerOptions {
  base: string;
  token: string;
  owner: string;
  repo: string;
  hookId: string;
  window: ReplayWindow;
}

/** The `cursor` of the `rel="next"` link, if there is one. */
export function nextCursorFromLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1]) return new URL(m[1], "http://x").searchParams.get("cursor") ?? undefined;
  }
  return undefined;
}

const matchesType = (types: readonly string[], event: string, action: string | undefined) =>
  types.length === 0 || types.includes(event) || (action !== undefined && types.includes(`${event}.${action}`));

/**
 * A repository webhook's deliveries, newest first, paged by the Link header's cursor; GitHub has no
 * time filter, so paging stops at the first page that reaches back past `since`. One event (guid)
 * may have several deliveries (redeliveries): a page lists it once. Payloads are fetched per delivery,
 * only for the ones the ledger is missing.
 */
export function githubLister(opts: GithubListerOptions, deps: ListerDeps): ReplayLister {
  const http = { ...deps.http, secrets: [...(deps.http.secrets ?? []), opts.token] };
  const headers = {
    authorization: `Bearer ${opts.token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
  };
  const repo = `${opts.base.replace(/\/$/, "")}/repos/${encodeURIComponent(opts.owner)}/${encodeURIComponent(opts.repo)}`;
  const hook = `${repo}/hooks/${encodeURIComponent(opts.hookId)}/deliveries`;

  async function load(id: string, guid: string, event: string) {
    let body: unknown;
    try {
      ({ body } = await getJson(`${hook}/${id}`, headers, http));
    } catch (err) {
      if (err instanceof ReplayHttpError && (err.status === 404 || err.status === 410)) return undefined;
      throw err;
    }
    const request = isObject(body) && isObject(body.request) ? body.request : undefined;
    if (!request || !isObject(request.payload)) return undefined;
    const sent: Record<string, string> = {};
    if (isObject(request.headers))
      for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") sent[k.toLowerCase()] = v;
    return {
      payload: request.payload,
      rawBody: JSON.stringify(request.payload),
      headers: { ...sent, "x-github-delivery": guid, "x-github-event": event },
    };
  }

  return {
    source: "github",
    async page(cursor) {
      const url = new URL(hook);
      url.searchParams.set("per_page", String(deps.pageSize ?? 100));
      if (cursor) url.searchParams.set("cursor", cursor);
      const res = await getJson(url.toString(), headers, http);
      if (!Array.isArray(res.body))
        throw new ReplayHttpError(`GET ${url.pathname} answered something that is not a list of deliveries`, 200);
      const seen = new Set<string>();
      const items: ReplayItem[] = [];
      let reachedSince = false;
      for (const d of res.body as unknown[]) {
        const id = idAt(d, "id");
        const guid = idAt(d, "guid");
        const event = idAt(d, "event");
        const at = new Date(isObject(d) && typeof d.delivered_at === "string" ? d.delivered_at : NaN);
        if (!id || !guid || !event || Number.isNaN(at.getTime()))
          throw new ReplayHttpError(
            `GET ${url.pathname} listed a delivery without id, guid, event or delivered_at`,
            200,
          );
        if (at < opts.window.since) reachedSince = true;
        if (!inWindow(at, opts.window) || !matchesType(opts.window.types, event, idAt(d, "action")) || seen.has(guid))
          continue;
        seen.add(guid);
        const action = idAt(d, "action");
        items.push({
          eventId: guid,
          type: action ? `${event}.${action}` : event,
          at,
          load: () => load(id, guid, event),
          redeliver: async () => {
            await fetchWithRetry(`${hook}/${id}/attempts`, { method: "POST", headers }, http);
          },
        });
      }
      const next = reachedSince ? undefined : nextCursorFromLink(res.headers.get("link"));
      return { items, next };
    },
  };
}
