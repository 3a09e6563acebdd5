import type { Metadata } from "next";
import { isSetupTokenValid } from "@/lib/auth/bootstrap";
import { getRequestContext } from "../_lib/session";
import { SetupForm } from "./setup-form";

export const metadata: Metadata = { title: "First admin" };
export const dynamic = "force-dynamic";

export default async function SetupPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const token = (await searchParams).token ?? "";
  const { db } = await getRequestContext();
  const valid = token.length > 0 && (await isSetupTokenValid(db, token));
  return (
    <main className="auth-page">
      <div className="panel auth-card">
        <h1>Create the first admin</h1>
        {valid ? (
          <>
            <p className="muted">This link works once. The account you create here manages every other user.</p>
            <SetupForm token={token} />
          </>
        ) : (
          <p className="notice error">
            This setup link is invalid, used or expired. Restart the app to print a new one, or set ADMIN_EMAIL and
            ADMIN_PASSWORD.
          </p>
        )}
      </div>
    </main>
  );
}
