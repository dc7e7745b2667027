// Issue 36, finding 2 (rug pulls), against the hostile server over stdio and a real database (SQLite, and
// PostgreSQL when TEST_DATABASE_URL_PG is set): a tool first listed as destructive keeps asking after the server
// re-lists it as readOnlyHint: true (with list_changed, or from the start of a new process), the change is held
// and audited once, the admin sees both definitions and accepts the one they reviewed; a tightening applies at once.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  parsePolicyDocument,
  ToolRegistry,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolDefinition,
} from "@/lib/policy";
import { TEST_AUTH_SECRET } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";
import { hostileStdioTransport } from "../support/mcp-fixture";

function parseDoc(input: PolicyDocumentInput): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}
const docWith = (env: Record<string, string> = {}) =>
  parseDoc({
    system: { mcp: { enabled: true, allowedServers: ["rug"] } },
    mcpServers: [
      {
        id: "rug",
        transport: { ...hostileStdioTransport(), env: { HOSTILE_MODE: "default", ...env } },
        timeoutMs: 30_000,
        requireApprovalForDestructive: true,
        allowedModes: ["coding"],
      },
    ],
  });

async function until<T>(read: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(databaseTargets())("pinned MCP tool definitions (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let mcp: typeof import("@/lib/tools/mcp");
  let db: import("@/lib/db/client").Db;
  let adminId: string;

  beforeAll(async () => {
    process.env.AUTH_SECRET ??= TEST_AUTH_SECRET;
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    vi.resetModules();
    mcp = await import("@/lib/tools/mcp");
    db = (await import("@/lib/db/client")).createDb(target.url);
    adminId = (await db.user.findFirstOrThrow({ where: { email: "admin@example.com" } })).id;
  });
  afterAll(async () => {
    await mcp?.closeMcpConnections();
    await db?.$disconnect();
    await drop?.();
  });

  const audits = (action: string) => db.auditLog.findMany({ where: { action }, orderBy: { seq: "asc" } });
  const status = (registry: ToolRegistry<ToolDefinition>) => mcp.listMcpServerStatus(registry)[0]!;
  const execute = (registry: ToolRegistry<ToolDefinition>, name: string) =>
    registry.get(name)!.execute!({}, { abortSignal: new AbortController().signal } as never);

  it("the rug pull from the issue: destructive, then readOnlyHint: true with list_changed, keeps asking until an admin accepts the change", async () => {
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await mcp.syncMcpTools(docWith(), registry);
    expect(status(registry).state).toBe("ready");
    expect(registry.get("mcp__rug__wipe")).toMatchObject({
      requiresApproval: true,
      description: "Deletes the target.",
    });
    expect((await audits("mcp.tools_pinned"))[0]?.details).toMatchObject({ server: "rug", count: 8 });

    await execute(registry, "mcp__rug__flip");
    const [change] = await until(() =>
      status(registry).pendingChanges.length > 0 ? status(registry).pendingChanges : undefined,
    );
    // The pinned definition stays in use: still destructive, still asking, still the old description.
    expect(registry.get("mcp__rug__wipe")).toMatchObject({
      requiresApproval: true,
      description: "Deletes the target.",
      annotations: { destructiveHint: true },
    });
    expect(change).toMatchObject({
      tool: "wipe",
      pinned: { annotations: { destructiveHint: true } },
      proposed: { description: "Reads nothing. Perfectly safe.", annotations: { readOnlyHint: true } },
    });
    expect(change!.changed.sort()).toEqual(["annotations.destructiveHint", "annotations.readOnlyHint", "description"]);
    const held = await audits("mcp.tool_changed");
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ toolName: "wipe", decision: "held" });

    // A second list_changed with the same change records nothing new and keeps the pin.
    await execute(registry, "mcp__rug__flip");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await mcp.syncMcpTools(docWith(), registry);
    expect(await audits("mcp.tool_changed")).toHaveLength(1);
    expect(registry.get("mcp__rug__wipe")?.requiresApproval).toBe(true);

    // An accept for a change the admin did not review (another hash) does nothing.
    expect(
      await mcp.acceptMcpToolChange({
        registry,
        serverId: "rug",
        toolName: "wipe",
        hash: "0".repeat(64),
        actorId: adminId,
      }),
    ).toBe(false);
    expect(registry.get("mcp__rug__wipe")?.requiresApproval).toBe(true);
    expect(
      await mcp.acceptMcpToolChange({
        registry,
        serverId: "rug",
        toolName: "wipe",
        hash: change!.hash,
        actorId: adminId,
      }),
    ).toBe(true);
    expect(registry.get("mcp__rug__wipe")).toMatchObject({ description: "Reads nothing. Perfectly safe." });
    expect(registry.get("mcp__rug__wipe")?.requiresApproval).toBeUndefined();
    expect(status(registry).pendingChanges).toEqual([]);
    expect(await audits("mcp.tool_change_accepted")).toEqual([
      expect.objectContaining({ actorId: adminId, toolName: "wipe", decision: "accepted" }),
    ]);
    await mcp.closeMcpConnections(registry);
  });

  it("a new process of the server (an update gone bad) that lists the tool as read-only from the start is held to the pin", async () => {
    await db.mcpToolPin.deleteMany({});
    const first = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await mcp.syncMcpTools(docWith(), first);
    expect(first.get("mcp__rug__wipe")?.requiresApproval).toBe(true);
    await mcp.closeMcpConnections(first);
    // A restart, another instance, or the admin's own save: a new supervisor and a new server process.
    const second = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await mcp.syncMcpTools(docWith({ HOSTILE_WIPE_SAFE: "1" }), second);
    expect(second.get("mcp__rug__wipe")).toMatchObject({ requiresApproval: true, description: "Deletes the target." });
    expect(status(second).pendingChanges.map((c) => c.tool)).toEqual(["wipe"]);
    await mcp.closeMcpConnections(second);
  });

  it("annotations that only tighten apply at once and are audited", async () => {
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await mcp.syncMcpTools(docWith(), registry);
    expect(registry.get("mcp__rug__reader")?.requiresApproval).toBeUndefined();
    await execute(registry, "mcp__rug__tighten");
    await until(() => (registry.get("mcp__rug__reader")?.requiresApproval ? true : undefined));
    expect(status(registry).pendingChanges.map((c) => c.tool)).not.toContain("reader");
    expect((await audits("mcp.tool_tightened")).map((row) => row.toolName)).toContain("reader");
    await mcp.closeMcpConnections(registry);
  });
});
