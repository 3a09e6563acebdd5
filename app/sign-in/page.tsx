import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getRequestContext } from "@/app/_lib/session";
import { SignInForm } from "./sign-in-form";
import { safeNext } from "./safe-next";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNext((await searchParams).next);
  const { actor } = await getRequestContext();
  if (actor) redirect(next);
  return (
    <main className="auth-page">
      <div className="panel auth-card">
        <h1>Webhook Ledger</h1>
        <p className="muted">Sign in to the console.</p>
        <SignInForm next={next} />
      </div>
    </main>
  );
}
