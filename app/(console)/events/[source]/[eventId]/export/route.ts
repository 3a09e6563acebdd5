import { ForbiddenError } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";
import { exportEvent } from "@/lib/ledger/event-detail";
import { NotFoundError } from "@/lib/ledger/types";
import { isSource, secretsFromEnv } from "@/lib/providers";
import { getRequestContext } from "../../../../../_lib/session";

export const dynamic = "force-dynamic";

/** GET: the whole ledger record of one event as a JSON download, for a dispute. */
export async function GET(_req: Request, ctx: { params: Promise<{ source: string; eventId: string }> }): Promise<Response> {
  const { source, eventId } = await ctx.params;
  if (!isSource(source)) return Response.json({ error: `unknown source "${source}"` }, { status: 404 });
  const { db, actor } = await getRequestContext();
  try {
    const doc = await exportEvent(db, actor, { source, eventId }, secretsFromEnv(getEnv()));
    const name = `${source}-${eventId}`.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);
    return new Response(JSON.stringify(doc, null, 2), {
      headers: { "content-type": "application/json", "content-disposition": `attachment; filename="${name}.json"`, "cache-control": "no-store" },
    });
  } catch (err) {
    if (err instanceof ForbiddenError) return Response.json({ error: "sign in to export events" }, { status: actor ? 403 : 401 });
    if (err instanceof NotFoundError) return Response.json({ error: err.message }, { status: 404 });
    throw err;
  }
}
