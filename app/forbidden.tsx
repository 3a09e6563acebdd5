import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="auth-page">
      <div className="panel auth-card">
        <h1>Not allowed</h1>
        <p className="muted">Your role does not include this page. Ask an admin if you need it.</p>
        <Link href="/">Back to the overview</Link>
      </div>
    </main>
  );
}
