import { after } from "next/server";
import { receiveWebhook } from "@/lib/receiver/receive";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { afterClaim } from "@/lib/worker/embedded";

// What `next dev` and a bare `next start` answer webhooks with; `npm start` and `npm run receiver` answer every
// spelling of this path on node:http first (lib/receiver/node.ts). Both are thin callers of receiveDelivery, which
// reads the body within the same bounds (size 413, time 408, the process's unverified-bytes budget 503).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(request: Request, ctx: { params: Promise<{ source: string }> }): Promise<Response> {
  const { source } = await ctx.params;
  const { response, work } = await receiveWebhook(source, request, receiverDepsFromEnv());
  // After the provider has its 200: the claim is committed, so this is an optimisation, not a promise.
  if (work) after(() => afterClaim(work));
  return response;
}
