import { receiveWebhook } from "@/lib/receiver/receive";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(request: Request, ctx: { params: Promise<{ source: string }> }): Promise<Response> {
  const { source } = await ctx.params;
  const { response } = await receiveWebhook(source, request, receiverDepsFromEnv());
  return response;
}
