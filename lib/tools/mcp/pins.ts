import "server-only";
// Rug pulls: a server that re-lists a tool (a destructive one as readOnlyHint: true, a new description telling
// the model to do something else, a wider schema) must not change what Toolgate runs. A tool's definition (name,
// description, input schema, annotations) is pinned the first time it is discovered on a server the admin enabled;
// afterwards every listing is compared with the pin:
// - the same: used as is;
// - only annotations that tighten (read-only → not, non-destructive → destructive, idempotent → not, closed
//   world → open; nothing else changed): the tighter one is pinned at once, audited (mcp.tool_tightened);
// - anything else: the pinned definition stays in use, and the new one is held for an admin's review
//   (mcp.tool_changed), who sees both in the MCP view and may accept it (mcp.tool_change_accepted).
// A tool once destructive therefore keeps asking until an admin accepts the change.
import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { canonicalJson } from "@/lib/canonical-json";
import { appendAudit } from "@/lib/db/audit";
import {
  acceptToolChange,
  clearToolChange,
  createToolPin,
  holdToolChange,
  listToolPins,
  tightenToolPin,
  type PinRow,
} from "@/lib/db/mcp-tool-pins";
import type { KeptTool } from "./limits";

export type PinnedDefinition = {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: Tool["annotations"];
};

/** A change held for review, as the admin view shows it. */
export type PendingToolChange = {
  tool: string;
  hash: string;
  since: string | null;
  pinned: PinnedDefinition;
  proposed: PinnedDefinition;
  changed: string[];
};

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

export function definitionOf(tool: KeptTool): PinnedDefinition {
  const annotations = tool.annotations
    ? Object.fromEntries(Object.entries(tool.annotations).filter(([, v]) => v !== undefined))
    : undefined;
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}

export function definitionHash(definition: PinnedDefinition): string {
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

/** Which parts of a definition differ (for the view and the audit entry). */
export function changedParts(a: PinnedDefinition, b: PinnedDefinition): string[] {
  const parts: string[] = [];
  if (a.description !== b.description) parts.push("description");
  if (canonicalJson(a.inputSchema ?? null) !== canonicalJson(b.inputSchema ?? null)) parts.push("inputSchema");
  const annotationsA = a.annotations ?? {};
  const annotationsB = b.annotations ?? {};
  for (const key of new Set([...Object.keys(annotationsA), ...Object.keys(annotationsB)])) {
    if (
      canonicalJson((annotationsA as Record<string, unknown>)[key] ?? null) !==
      canonicalJson((annotationsB as Record<string, unknown>)[key] ?? null)
    )
      parts.push(`annotations.${key}`);
  }
  return parts;
}

/** MCP's defaults for a missing hint: not read-only, destructive, not idempotent, open world. */
const strictness = (annotations: Tool["annotations"] | undefined) => ({
  readOnlyHint: annotations?.readOnlyHint === true ? 0 : 1,
  destructiveHint: annotations?.destructiveHint === false ? 0 : 1,
  idempotentHint: annotations?.idempotentHint === true ? 0 : 1,
  openWorldHint: annotations?.openWorldHint === false ? 0 : 1,
});

/** True when `next` differs from `pinned` only in hints, and each of those is at least as strict as before. */
export function onlyTightens(pinned: PinnedDefinition, next: PinnedDefinition): boolean {
  const parts = changedParts(pinned, next);
  if (parts.length === 0 || parts.some((part) => !HINTS.some((hint) => part === `annotations.${hint}`))) return false;
  const before = strictness(pinned.annotations);
  const after = strictness(next.annotations);
  return HINTS.every((hint) => after[hint] >= before[hint]);
}

const asDefinition = (value: unknown) => value as PinnedDefinition;

function pendingOf(row: PinRow): PendingToolChange | null {
  if (!row.pendingHash || row.pending === null) return null;
  const pinned = asDefinition(row.definition);
  const proposed = asDefinition(row.pending);
  return {
    tool: row.toolName,
    hash: row.pendingHash,
    since: row.pendingAt?.toISOString() ?? null,
    pinned,
    proposed,
    changed: changedParts(pinned, proposed),
  };
}

/**
 * The tools to register for a listing, with pinned definitions in place of changed ones, and the changes held
 * for review. Throws when the pins cannot be read or written: the caller fails the discovery (fail closed).
 */
export async function applyPins(
  serverId: string,
  tools: readonly KeptTool[],
): Promise<{ tools: KeptTool[]; pending: PendingToolChange[] }> {
  const pins = new Map((await listToolPins({ serverId })).map((row) => [row.toolName, row]));
  const effective: KeptTool[] = [];
  const pending: PendingToolChange[] = [];
  const pinnedNow: string[] = [];
  for (const tool of tools) {
    const definition = definitionOf(tool);
    const hash = definitionHash(definition);
    let pin = pins.get(tool.name);
    if (!pin) {
      if (await createToolPin({ serverId, toolName: tool.name, definition, hash })) {
        pinnedNow.push(tool.name);
        effective.push(tool);
        continue;
      }
      pin = (await listToolPins({ serverId })).find((row) => row.toolName === tool.name);
      if (!pin) throw new Error(`the pinned definition of ${tool.name} could not be read`);
    }
    const pinned = asDefinition(pin.definition);
    if (pin.hash === hash) {
      if (pin.pendingHash) await clearToolChange({ serverId, toolName: tool.name, pinnedHash: pin.hash });
      effective.push(tool);
    } else if (onlyTightens(pinned, definition)) {
      if (await tightenToolPin({ serverId, toolName: tool.name, fromHash: pin.hash, definition, hash })) {
        await appendAudit({
          action: "mcp.tool_tightened",
          toolName: tool.name,
          details: {
            server: serverId,
            changed: changedParts(pinned, definition),
            from: pinned.annotations ?? {},
            to: definition.annotations ?? {},
          },
        });
      }
      effective.push(tool);
    } else {
      if (
        pin.pendingHash !== hash &&
        (await holdToolChange({
          serverId,
          toolName: tool.name,
          pinnedHash: pin.hash,
          pending: definition,
          pendingHash: hash,
        }))
      ) {
        await appendAudit({
          action: "mcp.tool_changed",
          toolName: tool.name,
          decision: "held",
          details: {
            server: serverId,
            changed: changedParts(pinned, definition),
            pinnedHash: pin.hash,
            proposedHash: hash,
          },
        });
      }
      // The pinned definition stays in use; only how the call is run (task support) comes from the server.
      effective.push({ ...pinned, ...(tool.execution ? { execution: tool.execution } : {}) } as KeptTool);
      pending.push({
        tool: tool.name,
        hash,
        since: pin.pendingAt?.toISOString() ?? new Date().toISOString(),
        pinned,
        proposed: definition,
        changed: changedParts(pinned, definition),
      });
    }
  }
  if (pinnedNow.length > 0)
    await appendAudit({
      action: "mcp.tools_pinned",
      details: { server: serverId, tools: pinnedNow.slice(0, 300), count: pinnedNow.length },
    });
  return { tools: effective, pending };
}

/** The changes held for a server (for a view on an instance that has not listed the server itself). */
export async function listPendingToolChanges(serverId: string): Promise<PendingToolChange[]> {
  return (await listToolPins({ serverId })).flatMap((row) => pendingOf(row) ?? []);
}

/** An admin accepts the change they reviewed; false when it is no longer the pending one. Audited. */
export async function acceptPendingToolChange({
  serverId,
  toolName,
  hash,
  actorId,
}: {
  serverId: string;
  toolName: string;
  hash: string;
  actorId: string;
}): Promise<boolean> {
  const before = await acceptToolChange({ serverId, toolName, pendingHash: hash, actorId });
  if (!before) return false;
  const pinned = asDefinition(before.definition);
  const accepted = asDefinition(before.pending);
  await appendAudit({
    action: "mcp.tool_change_accepted",
    actorId,
    toolName,
    decision: "accepted",
    details: { server: serverId, changed: changedParts(pinned, accepted), fromHash: before.hash, toHash: hash },
  });
  return true;
}
