import { exportEvent, exportJson } from "@/lib/console/event-detail";
import { eventKeyFromParams } from "@/lib/ledger/params";
import { expectedErrorMessage, ForbiddenError, httpStatusOf } from "@/lib/errors";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { getRequestContext } from "../../../../../_lib/session";

export const dynamic = "force-dynamic";

/** GET: the whole ledger record of one event as a JSON download, for a dispute. */
export async function GET(
  _req: Request,
  ctx: { params: Promise<{ source: string; eventId: string }> },
): Promise<Response> {
  // An unknown source is a 404; an id no row can have (NUL, not UTF-8, over 255 characters) a 400, not a database error.
  const key = eventKeyFromParams(await ctx.params);
  if (!key.ok)
    return Response.json({ error: key.error }, { status: key.status, headers: { "cache-control": "no-store" } });
  const { source, eventId } = key.value;
  const { db, actor } = await getRequestContext();
  try {
    const doc = await exportEvent(db, actor, { source, eventId }, (slug) => sourcesFromEnv().find(slug));
    const name = `${source}-${eventId}`.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);
    return new Response(exportJson(doc), {
      headers: {
        "content-type": "application/json",
        "content-disposition": `attachment; filename="${name}.json"`,
        "cache-control": "no-store",
      },
    });
  } catch (err) {
    if (err instanceof ForbiddenError)
      return Response.json({ error: "sign in to export events" }, { status: actor ? 403 : 401 });
    const message = expectedErrorMessage(err);
    if (message !== undefined) return Response.json({ error: message }, { status: httpStatusOf(err) });
    throw err;
  }
}
