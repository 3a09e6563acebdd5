import { isExposedAuthPath } from "@/lib/auth/exposed";
import { getAuth } from "@/lib/auth/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Only the endpoints the console uses (lib/auth/exposed.ts); the handler enforces the same list, this
// just answers the rest before the auth setup and its rate-limit rows are touched.
const notFound = () => new Response("Not Found", { status: 404 });

export async function GET(request: Request): Promise<Response> {
  if (!isExposedAuthPath(request.url)) return notFound();
  return (await getAuth()).handler(request);
}

export async function POST(request: Request): Promise<Response> {
  if (!isExposedAuthPath(request.url)) return notFound();
  return (await getAuth()).handler(request);
}
