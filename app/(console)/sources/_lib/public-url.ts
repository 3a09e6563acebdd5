import { headers } from "next/headers";
import { getEnv } from "@/lib/env";

/** The app's public origin: APP_URL when set (behind a proxy it is the truth), else this request's own. */
export async function publicOrigin(): Promise<string> {
  const configured = getEnv().APP_URL;
  if (configured) return configured.replace(/\/+$/, "");
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? `127.0.0.1:${getEnv().PORT}`;
  const proto = h.get("x-forwarded-proto") ?? "http";
  return `${proto.split(",")[0]!.trim()}://${host.split(",")[0]!.trim()}`;
}
