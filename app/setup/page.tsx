import type { Metadata } from "next";
import Link from "@/components/link";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { getSetupState } from "@/lib/auth/bootstrap";
import { PASSWORD_RULES } from "@/lib/auth/users";
import { getRequestContext } from "../_lib/session";
import { AuthCard } from "../sign-in/auth-card";
import { SetupForm } from "./setup-form";

export const metadata: Metadata = { title: "First admin" };
export const dynamic = "force-dynamic";

const SIGN_IN = (
  <Button asChild className="w-full">
    <Link href="/sign-in">Go to sign-in</Link>
  </Button>
);

/** Where a new link comes from: the server mints one at every start while no user exists. */
const HOW_TO_GET_A_LINK = (
  <ul className="list-disc space-y-1 pl-5 text-sm">
    <li>
      Restart the app: while no user exists it prints a new one-time link in its log at start-up (
      <code>no users yet: create the first admin at …</code>), valid 24 h.
    </li>
    <li>
      Or set <code>ADMIN_EMAIL</code> and <code>ADMIN_PASSWORD</code> and restart: the first admin is created from them,
      and you sign in with that password.
    </li>
  </ul>
);

export default async function SetupPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const raw = (await searchParams).token;
  const token = (Array.isArray(raw) ? raw[0] : raw) ?? "";
  const { db } = await getRequestContext();
  const state = await getSetupState(db, token.slice(0, 200) || undefined);
  switch (state) {
    case "admin-exists":
      return (
        <AuthCard
          title="Setup is done"
          description="An admin already exists, so setup links no longer work and none will be printed again."
        >
          <Alert tone="info" role="status">
            Sign in with your account. New users are added by an admin on the Users page.
          </Alert>
          {SIGN_IN}
        </AuthCard>
      );
    case "link-valid":
      return (
        <AuthCard
          title="Create the first admin"
          description="This link works once. The account you create here manages every other user."
        >
          <SetupForm token={token} passwordRules={PASSWORD_RULES} />
        </AuthCard>
      );
    case "link-invalid":
      return (
        <AuthCard
          title="This setup link does not work"
          description="It is mistyped, or older than 24 h, or a later start-up replaced it."
        >
          <Alert tone="danger" role="alert">
            This setup link is invalid or expired.
          </Alert>
          {HOW_TO_GET_A_LINK}
        </AuthCard>
      );
    case "no-link":
      return (
        <AuthCard
          title="Create the first admin"
          description="No user exists yet. The first admin is made with a one-time link."
        >
          {HOW_TO_GET_A_LINK}
        </AuthCard>
      );
  }
}
