import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { ROLES } from "@/lib/auth/role-names";
import { listUsers, PASSWORD_RULES } from "@/lib/auth/users";
import { requirePage } from "../../_lib/session";
import { CreateUserForm } from "./_components/create-user-form";
import { UserRowActions } from "./_components/user-row-actions";
import { plural } from "@/lib/format/words";

export const metadata: Metadata = { title: "Users" };

const ROLE_WORDS: Record<(typeof ROLES)[number], string> = {
  support: "reads everything: events, payloads, customers, the audit log",
  ops: "also requeues, processes now, resolves ties and replays",
  admin: "also manages users, sources, alerts and erasure",
};

export default async function UsersPage() {
  const { db, actor } = await requirePage("users.manage", "/users");
  const users = await listUsers({ db, actor });
  const disabled = users.filter((u) => u.disabled).length;
  return (
    <>
      <PageHeader title="Users" description="Who can sign in to the console, and what their role lets them do." />
      <dl className="mb-5 grid grid-cols-1 gap-3 sm:grid-cols-3">
        {ROLES.map((r) => (
          <div key={r} className="rounded-lg border bg-card px-3 py-2 text-sm shadow-xs">
            <dt className="font-medium">{r}</dt>
            <dd className="text-xs text-muted-foreground">{ROLE_WORDS[r]}</dd>
          </div>
        ))}
      </dl>

      <Card className="mb-5">
        <CardHeader>
          <div>
            <CardTitle>Add a user</CardTitle>
            <CardDescription>They sign in with this email and password; there is no self sign-up.</CardDescription>
          </div>
        </CardHeader>
        <CardContent>
          <CreateUserForm roles={ROLES} passwordRules={PASSWORD_RULES} />
        </CardContent>
      </Card>

      <h2 className="mb-2 text-sm font-semibold">
        {plural(users.length, "user")}
        {disabled > 0 && <span className="font-normal text-muted-foreground"> · {disabled} disabled</span>}
      </h2>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>User</TableHead>
            <TableHead from="md">Status</TableHead>
            <TableHead from="lg">Added (UTC)</TableHead>
            <TableHead className="text-right">Role and access</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {users.map((u) => (
            <TableRow key={u.id} data-user={u.email}>
              <TableCell className="min-w-0 align-middle">
                <div className="font-medium [overflow-wrap:anywhere]">{u.email}</div>
                <div className="text-xs break-words text-muted-foreground">{u.name}</div>
                <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted-foreground md:hidden">
                  <Badge tone={u.disabled ? "danger" : "success"}>{u.disabled ? "disabled" : "active"}</Badge>
                  <span className="lg:hidden">
                    added <Time value={u.createdAt} />
                  </span>
                </div>
              </TableCell>
              <TableCell from="md" className="align-middle">
                <Badge tone={u.disabled ? "danger" : "success"}>{u.disabled ? "disabled" : "active"}</Badge>
              </TableCell>
              <TableCell from="lg" className="align-middle whitespace-nowrap font-mono text-xs">
                <Time value={u.createdAt} />
              </TableCell>
              <TableCell className="w-px align-middle">
                <UserRowActions
                  userId={u.id}
                  email={u.email}
                  role={u.role}
                  disabled={u.disabled}
                  roles={ROLES}
                  roleWords={ROLE_WORDS}
                  self={u.id === actor.id}
                />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </>
  );
}
