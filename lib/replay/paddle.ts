import { idAt, isObject } from "@/lib/providers/types";
import { getJson, ReplayHttpError } from "./http";
import { inWindow, type ListerDeps, type ReplayItem, type ReplayLister, type ReplayWindow } from "./types";

export interface PaddleListerOptions {
  base: string;
  key: string;
  window: ReplayWindow;
}

/**
 * GET /events, newest first (order_by=id[DESC]), paged by `after` as given in meta.pagination.next.
 * Paddle has no time filter: events are kept or skipped by occurred_at, and paging stops at the first
 * page that reaches back past `since`.
 */
export function paddleLister(opts: PaddleListerOptions, deps: ListerDeps): ReplayLister {
  const http = { ...deps.http, secrets: [...(deps.http.secrets ?? []), opts.key] };
  return {
    source: "paddle",
    async page(cursor) {
      const url = new URL("/events", opts.base);
      url.searchParams.set("order_by", "id[DESC]");
      url.searchParams.set("per_page", String(deps.pageSize ?? 200));
      if (cursor) url.searchParams.set("after", cursor);
      const { body } = await getJson(url.toString(), { authorization: `Bearer ${opts.key}` }, http);
      const pagination =
        isObject(body) && isObject(body.meta) && isObject(body.meta.pagination) ? body.meta.pagination : undefined;
      if (!isObject(body) || !Array.isArray(body.data) || !pagination)
        throw new ReplayHttpError("GET /events answered something that is not a Paddle list", 200);
      const items: ReplayItem[] = [];
      let reachedSince = false;
      for (const event of body.data as unknown[]) {
        const eventId = idAt(event, "event_id");
        const type = idAt(event, "event_type");
        const at = new Date(isObject(event) && typeof event.occurred_at === "string" ? event.occurred_at : NaN);
        if (!eventId || !type || Number.isNaN(at.getTime()))
          throw new ReplayHttpError("GET /events listed an event without event_id, event_type or occurred_at", 200);
        if (at < opts.window.since) reachedSince = true;
        if (!inWindow(at, opts.window) || (opts.window.types.length > 0 && !opts.window.types.includes(type))) continue;
        const rawBody = JSON.stringify(event);
        items.push({ eventId, type, at, load: () => Promise.resolve({ payload: event, rawBody, headers: {} }) });
      }
      const nextUrl = typeof pagination.next === "string" ? pagination.next : undefined;
      const after = nextUrl ? new URL(nextUrl, opts.base).searchParams.get("after") : null;
      const next =
        !reachedSince && pagination.has_more === true
          ? (after ?? idAt((body.data as unknown[]).at(-1), "event_id"))
          : undefined;
      return { items, next };
    },
  };
}
