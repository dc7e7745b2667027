import type { Metadata } from "next";
import Link from "next/link";

const LINKS = [
  { href: "/admin/policy", title: "Tool policy", text: "The effective tool matrix per mode, the policy editor, preview, history and import/export." },
  { href: "/admin/audit", title: "Audit log", text: "Every gate decision and policy change, filterable, with the hash-chain check." },
  { href: "/admin/users", title: "Users, teams and mode grants", text: "Roles per user, teams and their members, and which modes each may use." },
];

export const metadata: Metadata = { title: "Admin" };

export default function AdminHome() {
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <ul className="mt-4 grid max-w-4xl gap-3 sm:grid-cols-3">
        {LINKS.map((l) => (
          <li key={l.href} className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
            <Link className="font-semibold text-sky-700 underline dark:text-sky-400" href={l.href}>{l.title}</Link>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{l.text}</p>
          </li>
        ))}
      </ul>
    </main>
  );
}
