/**
 * The floor for `npm run bench:ingest`: node:http + postgres.js doing only the claim insert.
 * No framework, no signature check, no validation, no delivery row. Same pool size as the app (10),
 * and the same row content (payload jsonb + raw body), so the gap to the app is the app's own work.
 */
import { createServer, type IncomingMessage } from "node:http";
import postgres from "postgres";

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT ?? "3300");
if (!url) throw new Error("DATABASE_URL is required");

const sql = postgres(url, { max: 10, onnotice: () => {} });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const server = createServer((req, res) => {
  const reply = (status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  };
  if (req.method === "GET") {
    sql`select 1`.then(
      () => reply(200, '{"ok":true}'),
      () => reply(503, '{"ok":false}'),
    );
    return;
  }
  readBody(req)
    .then(async (raw) => {
      const event = JSON.parse(raw) as { id: string; type: string };
      const rows = await sql`
        with body as (
          insert into webhook_event_body (source, event_id, payload, raw_body, headers)
          values ('stripe', ${event.id}, ${raw}::text::jsonb, ${raw}, '{}'::jsonb)
          on conflict (source, event_id) do nothing
          returning source, event_id
        )
        insert into webhook_event_state (source, event_id, event_type)
        select source, event_id, ${event.type} from body
        returning 1`;
      reply(200, JSON.stringify({ received: true, duplicate: rows.length === 0 }));
    })
    .catch((err: unknown) => reply(503, JSON.stringify({ error: String(err) })));
});

server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`[bare] listening on 127.0.0.1:${port}`));

const stop = () => {
  server.close();
  void sql.end({ timeout: 2 }).finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
