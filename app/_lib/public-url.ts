import { headers } from "next/headers";
import { getEnv } from "@/lib/env";
import { originOf } from "@/lib/server/public-origin";

/** The app's public origin for this request: the webhook URLs to paste, the cURL command's target. */
export async function publicOrigin(): Promise<string> {
  const env = getEnv();
  const h = await headers();
  return originOf({ configured: env.APP_URL, header: (name) => h.get(name), port: env.PORT });
}
