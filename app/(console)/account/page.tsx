import type { Metadata } from "next";
import { requirePage } from "../../_lib/session";
import { PasswordForm } from "./password-form";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const { actor } = await requirePage("events.read", "/account");
  return (
    <>
      <h1>Account</h1>
      <p className="muted">
        Signed in as <strong>{actor.email}</strong> ({actor.role}).
      </p>
      <h2>Change password</h2>
      <PasswordForm />
    </>
  );
}
