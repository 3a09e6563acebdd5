import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PASSWORD_RULES } from "@/lib/auth/users";
import { requirePage } from "../../_lib/session";
import { PasswordForm } from "./password-form";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const { actor } = await requirePage("events.read", "/account");
  return (
    <>
      <PageHeader title="Account" description="Your sign-in. Roles are changed by an admin on the Users page." />
      <div className="grid max-w-3xl grid-cols-1 gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.3fr)] lg:items-start">
        <Card>
          <CardHeader>
            <CardTitle>Signed in as</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-2 text-sm">
            <strong className="break-all">{actor.email}</strong>
            <div className="flex items-center gap-2 text-muted-foreground">
              Role <Badge tone="info">{actor.role}</Badge>
            </div>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <div>
              <CardTitle>Change password</CardTitle>
              <CardDescription>Your other sessions are signed out; this one stays.</CardDescription>
            </div>
          </CardHeader>
          <CardContent>
            <PasswordForm passwordRules={PASSWORD_RULES} />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
