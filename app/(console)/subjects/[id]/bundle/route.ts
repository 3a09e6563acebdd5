import { buildDisputeBundle, bundleFileName, bundleJson } from "@/lib/console/dispute-bundle";
import { expectedErrorMessage, ForbiddenError, httpStatusOf } from "@/lib/errors";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { getRequestContext } from "../../../../_lib/session";
import { subjectFromParam } from "../../_components/format";

export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** GET: the customer's dispute bundle as a JSON download (audited in buildDisputeBundle). */
export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const parsed = subjectFromParam((await ctx.params).id);
  if (!parsed.ok) return Response.json({ error: parsed.error }, { status: 400, headers: noStore });
  const { db, actor } = await getRequestContext();
  try {
    const doc = await buildDisputeBundle(
      db,
      actor,
      { subject: parsed.subject },
      { sourceOf: (slug) => sourcesFromEnv().find(slug), format: "json" },
    );
    return new Response(bundleJson(doc), {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${bundleFileName(doc.subject)}"`,
        ...noStore,
      },
    });
  } catch (err) {
    if (err instanceof ForbiddenError)
      return Response.json(
        { error: actor ? err.message : "sign in to download a dispute bundle" },
        { status: actor ? 403 : 401, headers: noStore },
      );
    const message = expectedErrorMessage(err);
    if (message !== undefined)
      return Response.json({ error: message }, { status: httpStatusOf(err), headers: noStore });
    throw err;
  }
}
