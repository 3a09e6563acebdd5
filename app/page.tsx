import { SOURCES } from "@/lib/providers/types";

export default function HomePage() {
  return (
    <main style={{ maxWidth: 720, margin: "48px auto", padding: "0 16px", lineHeight: 1.5 }}>
      <h1>Webhook Ledger</h1>
      <p>Verified, claimed-once webhook receiver. The console arrives with sign-in.</p>
      <h2>Endpoints</h2>
      <ul>
        {SOURCES.map((s) => (
          <li key={s}>
            <code>POST /api/webhooks/{s}</code>
          </li>
        ))}
        <li>
          <code>GET /api/health</code>
        </li>
      </ul>
    </main>
  );
}
