import { getAuth } from "@/lib/auth/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(request: Request): Promise<Response> {
  return (await getAuth()).handler(request);
}

export async function POST(request: Request): Promise<Response> {
  return (await getAuth()).handler(request);
}
