import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLog } from "@/components/admin/audit-log";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Audit" };

export default function AdminAuditPage() {
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
        Every gate decision, approval event and policy change, newest first. The log is append-only and hash-chained:
        “Verify chain” finds an edited or deleted row.
      </p>
      <Suspense>
        <AuditLog />
      </Suspense>
    </main>
  );
}
