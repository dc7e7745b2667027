import { listUsers } from "@/lib/db/users";

export const dynamic = "force-dynamic";

export default async function AdminUsersPage() {
  const users = await listUsers();
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Users and roles</h1>
      <table className="mt-4 w-full max-w-3xl text-left text-sm">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-800">
            <th className="py-2">E-mail</th>
            <th className="py-2">Roles</th>
            <th className="py-2">Teams</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id} className="border-b border-slate-100 dark:border-slate-900">
              <td className="py-2">{u.email}</td>
              <td className="py-2">{u.roles.join(", ")}</td>
              <td className="py-2">{u.teamIds.join(", ") || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
