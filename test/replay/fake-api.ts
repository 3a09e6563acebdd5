import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** 1-based count of requests this server has seen. */
  n: number;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Answer in place of the API (a 429, a 500), "hang" to never answer, "reset" to drop the connection. */
export type Fault = (req: FakeRequest) => FaultAnswer | Promise<FaultAnswer>;
type FaultAnswer = FakeResponse | "hang" | "reset" | undefined;

export interface FakeApi {
  url: string;
  requests: FakeRequest[];
  fault: Fault | undefined;
  close(): Promise<void>;
}

/** A provider API as a real HTTP server on loopback, on a random port unless one is given. */
export async function startFakeApi(
  route: (req: FakeRequest, api: FakeApi) => FakeResponse,
  port = 0,
): Promise<FakeApi> {
  const hanging = new Set<() => void>();
  const api: FakeApi = { url: "", requests: [], fault: undefined, close: async () => {} };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    const r: FakeRequest = {
      method: req.method ?? "GET",
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      n: api.requests.length + 1,
    };
    api.requests.push(r);
    req.resume();
    void Promise.resolve(api.fault?.(r)).then((faulted) => {
      const answer = faulted ?? route(r, api);
      if (answer === "reset") return res.destroy();
      if (answer === "hang") {
        const end = () => res.destroy();
        hanging.add(end);
        res.on("close", () => hanging.delete(end));
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise((resolve) => {
      for (const end of hanging) end();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}

const unauthorized = (message: string): FakeResponse => ({
  status: 401,
  body: { error: { message, type: "invalid_request_error" } },
});

export interface StripeEvent {
  id: string;
  created: number;
  type: string;
  [k: string]: unknown;
}

/** GET /v1/events as Stripe serves it: newest first, created[gte|lte], types[], starting_after, limit ≤ 100. */
export function stripeRoute(events: readonly StripeEvent[], key: string) {
  const sorted = [...events].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
  return (req: FakeRequest): FakeResponse => {
    if (req.headers.authorization !== `Bearer ${key}`) return unauthorized("Invalid API Key provided: sk_test_****");
    const one = /^\/v1\/events\/([^/]+)$/.exec(req.path);
    if (one) {
      const event = sorted.find((e) => e.id === decodeURIComponent(one[1]!));
      return event
        ? { status: 200, body: event }
        : {
            status: 404,
            body: {
              error: { message: `No such event: '${decodeURIComponent(one[1]!)}'`, type: "invalid_request_error" },
            },
          };
    }
    if (req.path !== "/v1/events") return { status: 404, body: { error: { message: "Unrecognized request URL" } } };
    const q = req.query;
    const gte = Number(q.get("created[gte]") ?? 0);
    const lte = Number(q.get("created[lte]") ?? Infinity);
    const types = q.getAll("types[]");
    const limit = Math.min(Number(q.get("limit") ?? 10), 100);
    let list = sorted.filter(
      (e) => e.created >= gte && e.created <= lte && (types.length === 0 || types.includes(e.type)),
    );
    const after = q.get("starting_after");
    if (after) {
      const i = list.findIndex((e) => e.id === after);
      if (i < 0)
        return { status: 400, body: { error: { message: `No such event: '${after}'`, param: "starting_after" } } };
      list = list.slice(i + 1);
    }
    return {
      status: 200,
      body: { object: "list", url: "/v1/events", has_more: list.length > limit, data: list.slice(0, limit) },
    };
  };
}

export interface GithubDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  event: string;
  action: string | null;
  payload: Record<string, unknown>;
  redelivery?: boolean;
}

const summary = (d: GithubDelivery) => ({
  id: d.id,
  guid: d.guid,
  delivered_at: d.delivered_at,
  redelivery: d.redelivery ?? false,
  duration: 0.27,
  status: "Invalid HTTP Response: 500",
  status_code: 500,
  event: d.event,
  action: d.action,
  installation_id: null,
  repository_id: 186853002,
  throttled_at: null,
});

/** A repository hook's deliveries API: newest first, cursor paging via the Link header, one delivery, redeliver. */
export function githubRoute(
  deliveries: readonly GithubDelivery[],
  token: string,
  hook = "/repos/Codertocat/Hello-World/hooks/109948940",
) {
  const sorted = [...deliveries].sort((a, b) => b.delivered_at.localeCompare(a.delivered_at) || b.id - a.id);
  const redelivered: number[] = [];
  const route = (req: FakeRequest, api: FakeApi): FakeResponse => {
    if (req.headers.authorization !== `Bearer ${token}`) return { status: 401, body: { message: "Bad credentials" } };
    const base = `${hook}/deliveries`;
    if (req.method === "GET" && req.path === base) {
      const perPage = Math.min(Number(req.query.get("per_page") ?? 30), 100);
      const cursor = req.query.get("cursor");
      const start = cursor ? sorted.findIndex((d) => `v1_${d.id}` === cursor) + 1 : 0;
      const page = sorted.slice(start, start + perPage);
      const last = page.at(-1);
      const headers: Record<string, string> = {};
      if (last && start + perPage < sorted.length)
        headers.link = `<${api.url}${base}?per_page=${perPage}&cursor=v1_${last.id}>; rel="next"`;
      return { status: 200, headers, body: page.map(summary) };
    }
    const one = new RegExp(`^${base}/(\\d+)(/attempts)?$`).exec(req.path);
    const d = one ? sorted.find((x) => String(x.id) === one[1]) : undefined;
    if (!one || !d) return { status: 404, body: { message: "Not Found" } };
    if (one[2] && req.method === "POST") {
      redelivered.push(d.id);
      return { status: 202, body: {} };
    }
    return {
      status: 200,
      body: {
        ...summary(d),
        url: "https://example.com/webhooks",
        request: {
          headers: {
            Accept: "*/*",
            "User-Agent": "GitHub-Hookshot/044aadd",
            "X-GitHub-Delivery": d.guid,
            "X-GitHub-Event": d.event,
            "X-GitHub-Hook-ID": "109948940",
            "Content-Type": "application/json",
          },
          payload: d.payload,
        },
        response: { headers: {}, payload: "Internal Server Error" },
      },
    };
  };
  return { route, redelivered };
}

export interface PaddleEvent {
  event_id: string;
  event_type: string;
  occurred_at: string;
  [k: string]: unknown;
}

/** GET /events as Paddle serves it: order_by=id[ASC|DESC], after=<id>, per_page ≤ 200, meta.pagination. */
export function paddleRoute(events: readonly PaddleEvent[], key: string) {
  return (req: FakeRequest, api: FakeApi): FakeResponse => {
    if (req.headers.authorization !== `Bearer ${key}`)
      return {
        status: 403,
        body: {
          error: { type: "request_error", code: "forbidden", detail: "You aren't permitted to perform this request." },
        },
      };
    if (req.path !== "/events") return { status: 404, body: { error: { code: "not_found" } } };
    const desc = req.query.get("order_by") === "id[DESC]";
    const perPage = Math.min(Number(req.query.get("per_page") ?? 50), 200);
    const after = req.query.get("after");
    const sorted = [...events].sort((a, b) => (a.event_id < b.event_id ? -1 : 1) * (desc ? -1 : 1));
    const list = after ? sorted.filter((e) => (desc ? e.event_id < after : e.event_id > after)) : sorted;
    const page = list.slice(0, perPage);
    const hasMore = list.length > perPage;
    const last = page.at(-1);
    const orderBy = encodeURIComponent(req.query.get("order_by") ?? "id[ASC]");
    const next = `${api.url}/events?after=${last?.event_id ?? after ?? ""}&order_by=${orderBy}&per_page=${perPage}`;
    return {
      status: 200,
      body: {
        data: page,
        meta: {
          request_id: `req_${req.n}`,
          pagination: { per_page: perPage, next, has_more: hasMore, estimated_total: events.length },
        },
      },
    };
  };
}
