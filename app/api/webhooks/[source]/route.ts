import { after } from "next/server";
import { receiveWebhook } from "@/lib/receiver/receive";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { afterClaim } from "@/lib/worker/embedded";

// Answers webhooks under `next dev` only: `npm start` (server.ts) and `npm run receiver` answer them on node:http
// before Next sees them (lib/receiver/node.ts). Both adapters call the same receiveDelivery;
// test/receiver/adapters.test.ts keeps their answers the same for every kind of delivery.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(request: Request, ctx: { params: Promise<{ source: string }> }): Promise<Response> {
  const { source } = await ctx.params;
  const { response, work } = await receiveWebhook(source, request, receiverDepsFromEnv());
  // After the provider has its 200: the claim is committed, so this is an optimisation, not a promise.
  if (work) after(() => afterClaim(work));
  return response;
}
