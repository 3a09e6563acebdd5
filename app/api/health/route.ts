import { checkHealth } from "@/lib/health";

// `npm run dev` only: `npm start` and `npm run receiver` answer it on node:http before Next (lib/server/http.ts).
// The answer of old, kept for what polls it; /api/health/live and /api/health/ready say more.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return Response.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
