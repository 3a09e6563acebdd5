import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getRequestContext } from "@/app/_lib/session";
import { AuthCard } from "./auth-card";
import { SignInForm } from "./sign-in-form";
import { safeNext } from "./safe-next";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNext((await searchParams).next);
  const { actor } = await getRequestContext();
  if (actor) redirect(next);
  return (
    <AuthCard
      title="Sign in"
      description="Events, customers, replays and the audit log of this ledger."
      footer="No account? An admin adds users on the Users page. Sign-ins are recorded in the audit log."
    >
      <SignInForm next={next} />
    </AuthCard>
  );
}
