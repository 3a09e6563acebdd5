import { idAt, isObject } from "@/lib/providers/types";
import { getJson, ReplayHttpError } from "./http";
import type { ListerDeps, ReplayLister, ReplayWindow } from "./types";

export interface StripeListerOptions {
  base: string;
  key: string;
  window: ReplayWindow;
  /** delivery_success=false: only events whose webhook delivery failed. */
  failedOnly?: boolean;
}

const seconds = (d: Date) => String(Math.floor(d.getTime() / 1000));

/**
 * GET /v1/events, newest first, windowed by created[gte]/created[lte]; the cursor is the last event
 * id of the page before (starting_after). Stripe keeps events for 30 days.
 */
export function stripeLister(opts: StripeListerOptions, deps: ListerDeps): ReplayLister {
  const http = { ...deps.http, secrets: [...(deps.http.secrets ?? []), opts.key] };
  return {
    source: "stripe",
    async page(cursor) {
      const url = new URL("/v1/events", opts.base);
      url.searchParams.set("created[gte]", seconds(opts.window.since));
      url.searchParams.set("created[lte]", seconds(opts.window.until));
      url.searchParams.set("limit", String(deps.pageSize ?? 100));
      if (cursor) url.searchParams.set("starting_after", cursor);
      for (const type of opts.window.types) url.searchParams.append("types[]", type);
      if (opts.failedOnly) url.searchParams.set("delivery_success", "false");
      const { body } = await getJson(url.toString(), { authorization: `Bearer ${opts.key}` }, http);
      if (!isObject(body) || !Array.isArray(body.data) || typeof body.has_more !== "boolean")
        throw new ReplayHttpError("GET /v1/events answered something that is not a Stripe list", 200);
      const events = body.data as unknown[];
      const items = events.map((event) => {
        const eventId = idAt(event, "id");
        if (!eventId) throw new ReplayHttpError("GET /v1/events listed an event without an id", 200);
        const rawBody = JSON.stringify(event);
        const created =
          isObject(event) && typeof event.created === "number" ? new Date(event.created * 1000) : undefined;
        return {
          eventId,
          type: idAt(event, "type"),
          at: created,
          load: () => Promise.resolve({ payload: event, rawBody, headers: {} }),
        };
      });
      const last = items.at(-1)?.eventId;
      return { items, next: body.has_more && last ? last : undefined };
    },
  };
}
