import Link from "next/link";

export default function AdminHome() {
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <ul className="mt-4 list-disc pl-6">
        <li>
          <Link className="text-sky-700 underline dark:text-sky-400" href="/admin/users">
            Users and roles
          </Link>
        </li>
      </ul>
    </main>
  );
}
