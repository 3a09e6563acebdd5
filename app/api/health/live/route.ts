import { checkLiveness } from "@/lib/health";

// `npm run dev` only: `npm start` and `npm run receiver` answer it on node:http before Next (lib/server/http.ts).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function GET(): Response {
  return Response.json(checkLiveness(), { headers: { "cache-control": "no-store" } });
}
