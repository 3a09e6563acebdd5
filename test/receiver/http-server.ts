import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { handleNodeWebhook } from "@/lib/receiver/node";
import type { ReceiveAnswer, ReceiverDeps } from "@/lib/receiver/receive";

/** The receiver behind a real node:http server on loopback, through the same adapter `npm start` uses. */
export async function startReceiverServer(
  deps: ReceiverDeps,
  onWork?: (work: NonNullable<ReceiveAnswer["work"]>) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => void handleNodeWebhook(req, res, deps, onWork));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
