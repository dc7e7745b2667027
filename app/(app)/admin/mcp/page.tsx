import type { Metadata } from "next";
import { McpServersAdmin } from "@/components/admin/mcp-servers";
import { requireRole } from "@/lib/auth/guards";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "MCP servers" };

export default async function AdminMcpPage() {
  await requireRole("admin");
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">MCP servers</h1>
      <McpServersAdmin />
    </main>
  );
}
