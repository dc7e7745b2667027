import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { listRecentCredentialRefusals, CREDENTIALS_REFUSED_ACTION, type ProviderRefusal } from "@/lib/ops/model-health";

const LINKS = [
  {
    href: "/admin/policy",
    title: "Tool policy",
    text: "The effective tool matrix per mode, the policy editor, preview, history and import/export.",
  },
  {
    href: "/admin/audit",
    title: "Audit log",
    text: "Every gate decision and policy change, filterable, with the hash-chain check.",
  },
  {
    href: "/admin/users",
    title: "Users, teams and mode grants",
    text: "Roles per user, teams and their members, and which modes each may use.",
  },
];

export const metadata: Metadata = { title: "Admin" };
export const dynamic = "force-dynamic";

/** Members only learn that "an admin has been told": this is where. */
function ModelProviderProblems({ refusals }: { refusals: ProviderRefusal[] }) {
  if (refusals.length === 0) return null;
  return (
    <section
      role="alert"
      aria-labelledby="model-problems-heading"
      className="mt-4 max-w-4xl rounded-lg border border-red-300 bg-red-50 p-4 text-sm dark:border-red-800 dark:bg-red-950"
    >
      <h2 id="model-problems-heading" className="font-semibold text-red-800 dark:text-red-200">
        A model provider refuses this server&apos;s credentials
      </h2>
      <ul className="mt-2 space-y-1">
        {refusals.map((r) => (
          <li key={`${r.provider}:${r.model ?? ""}`} data-testid="model-refusal">
            <span className="font-medium">
              {r.provider}
              {r.model ? `:${r.model}` : ""}
            </span>{" "}
            answered {r.status ?? "an error"} to {r.count} turn{r.count === 1 ? "" : "s"} in the last 24 hours, last at{" "}
            <time dateTime={r.lastAt.toISOString()}>{r.lastAt.toLocaleString("en-GB", { timeZone: "UTC" })} UTC</time>.
          </li>
        ))}
      </ul>
      <p className="mt-2 text-slate-700 dark:text-slate-300">
        Check the provider&apos;s API key in the server&apos;s environment and restart the app. The turns are in the{" "}
        <Link
          className="text-sky-700 underline dark:text-sky-400"
          href={`/admin/audit?action=${encodeURIComponent(CREDENTIALS_REFUSED_ACTION)}`}
        >
          audit log
        </Link>
        .
      </p>
    </section>
  );
}

export default async function AdminHome() {
  // The layout checks too; the page reads the audit log, so it does not rely on that alone.
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "admin")) redirect("/chat?notice=admin-only");
  const refusals = await listRecentCredentialRefusals();
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <ModelProviderProblems refusals={refusals} />
      <ul className="mt-4 grid max-w-4xl gap-3 sm:grid-cols-3">
        {LINKS.map((l) => (
          <li key={l.href} className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
            <Link className="font-semibold text-sky-700 underline dark:text-sky-400" href={l.href}>
              {l.title}
            </Link>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{l.text}</p>
          </li>
        ))}
      </ul>
    </main>
  );
}
