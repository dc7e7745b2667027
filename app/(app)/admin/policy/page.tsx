import type { Metadata } from "next";
import { headers } from "next/headers";
import { PolicyEditor } from "@/components/admin/policy-editor";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Policy" };

export default async function AdminPolicyPage() {
  // The proxy's per-request CSP nonce: the JSON editor (CodeMirror) puts it on the <style> element it injects.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">Tool policy</h1>
      <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
        What every agent may do, per mode, for the context you pick. Edits stay a draft until saved; the saved version
        applies to the next turn everywhere.
      </p>
      <PolicyEditor nonce={nonce} />
    </main>
  );
}
