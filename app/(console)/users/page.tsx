import type { Metadata } from "next";
import { ROLES } from "@/lib/auth/role-names";
import { listUsers } from "@/lib/auth/users";
import { requirePage } from "../../_lib/session";
import { CreateUserForm } from "./_components/create-user-form";
import { UserRowActions } from "./_components/user-row-actions";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const { db, actor } = await requirePage("users.manage", "/users");
  const users = await listUsers({ db, actor });
  return (
    <>
      <h1>Users</h1>
      <p className="muted">
        support reads everything · ops also requeues, processes and replays · admin also manages users.
      </p>
      <CreateUserForm roles={ROLES} />
      <h2>{users.length} users</h2>
      <table>
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Status</th>
            <th>Added</th>
            <th>Role</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id} data-user={u.email}>
              <td>{u.email}</td>
              <td>{u.name}</td>
              <td>
                <span className={`badge ${u.disabled ? "dead" : "ok"}`}>{u.disabled ? "disabled" : "active"}</span>
              </td>
              <td className="mono">{u.createdAt.toISOString().slice(0, 10)}</td>
              <td>
                <UserRowActions
                  userId={u.id}
                  role={u.role}
                  disabled={u.disabled}
                  roles={ROLES}
                  self={u.id === actor.id}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
