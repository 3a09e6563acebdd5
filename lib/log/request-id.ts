import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const REQUEST_ID_HEADER = "x-request-id";

/** What a proxy's or a client's id may look like to be kept: short, and nothing a log reader could trip on. */
const SANE = /^[A-Za-z0-9][A-Za-z0-9._:=+/@-]{0,127}$/;

export const saneRequestId = (value: unknown): value is string => typeof value === "string" && SANE.test(value);

/**
 * This request's id: the one already given to its response, else the client's `x-request-id` when sane,
 * else a new one; echoed in the response's `x-request-id`.
 */
export function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const existing = res.getHeader(REQUEST_ID_HEADER);
  if (typeof existing === "string") return existing;
  const given = req.headers[REQUEST_ID_HEADER];
  const id = saneRequestId(given) ? given : randomUUID();
  if (!res.headersSent) res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
