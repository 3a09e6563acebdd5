import type { LegacyKind } from "@/lib/sources/declared";
import { signDelivery } from "./sign";
import type { DemoDelivery } from "./traffic";

export interface PostSummary {
  sent: number;
  byStatus: Record<string, number>;
  skipped: LegacyKind[];
}

/** Posts signed deliveries to a running app over HTTP, exactly as a provider would. */
export async function postDeliveries(
  baseURL: string,
  deliveries: readonly DemoDelivery[],
  secrets: Partial<Record<LegacyKind, string>>,
): Promise<PostSummary> {
  const summary: PostSummary = { sent: 0, byStatus: {}, skipped: [] };
  for (const d of deliveries) {
    const secret = secrets[d.source];
    if (!secret) {
      if (!summary.skipped.includes(d.source)) summary.skipped.push(d.source);
      continue;
    }
    const res = await fetch(`${baseURL}/api/webhooks/${d.source}`, {
      method: "POST",
      headers: signDelivery(d.source, d.body, secret, { id: d.id, headers: d.headers }),
      body: d.body,
    });
    await res.arrayBuffer();
    summary.sent++;
    summary.byStatus[res.status] = (summary.byStatus[res.status] ?? 0) + 1;
  }
  return summary;
}
