import type { IncomingMessage, ServerResponse } from "node:http";
import { readNodeBodyLimited } from "./body";
import { receiveDelivery, type ReceiveAnswer, type ReceiverDeps } from "./receive";

export const WEBHOOK_PATH = /^\/api\/webhooks\/([^/?#]+)\/?(?:\?.*)?$/;

function nodeHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * POST /api/webhooks/{source} straight on node:http: the same receiver as the Next route handler,
 * without the framework's per-request cost on the one path providers hammer.
 */
export async function handleNodeWebhook(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ReceiverDeps,
  onWork?: (work: NonNullable<ReceiveAnswer["work"]>) => void,
): Promise<void> {
  let answer: ReceiveAnswer;
  const match = WEBHOOK_PATH.exec(req.url ?? "");
  if (req.method !== "POST") {
    answer = { status: 405, body: { error: "use POST" }, outcome: "rejected" };
    res.setHeader("allow", "POST");
  } else if (!match) {
    answer = { status: 404, body: { error: "no such endpoint" }, outcome: "rejected" };
  } else {
    let source: string;
    try {
      source = decodeURIComponent(match[1]!);
    } catch {
      source = match[1]!;
    }
    try {
      answer = await receiveDelivery(source, { headers: nodeHeaders(req), readBody: (limit) => readNodeBodyLimited(req, limit) }, deps);
    } catch (err) {
      deps.log?.(`[webhooks] ${source}: unexpected error`, err);
      answer = { status: 500, body: { error: "internal error" }, outcome: "rejected" };
    }
  }
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    ...answer.headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
  if (answer.work) onWork?.(answer.work);
}
