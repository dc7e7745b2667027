import type { Metadata } from "next";
import { McpClientsAdmin } from "@/components/admin/mcp-clients";
import { McpServersAdmin } from "@/components/admin/mcp-servers";
import { requirePageUser } from "@/lib/auth/page-guards";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "MCP servers" };

export default async function AdminMcpPage() {
  await requirePageUser("admin");
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">MCP servers</h1>
      <McpServersAdmin />
      <section aria-labelledby="mcp-clients-heading" className="space-y-3 pt-4">
        <h2 id="mcp-clients-heading" className="text-lg font-semibold">
          Connected clients
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Tokens and OAuth clients that used the gateway (/mcp), the most recently seen first, with their latest calls.
        </p>
        <McpClientsAdmin />
      </section>
    </main>
  );
}
