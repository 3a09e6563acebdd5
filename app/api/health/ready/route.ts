import { checkReadiness } from "@/lib/health";
import { embeddedWorkerProbe } from "@/lib/worker/embedded";

// `npm run dev` only: `npm start` and `npm run receiver` answer it on node:http before Next (lib/server/http.ts).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(): Promise<Response> {
  const ready = await checkReadiness({ worker: embeddedWorkerProbe() });
  return Response.json(ready, { status: ready.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
