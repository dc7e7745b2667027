import "server-only";
// Resources and prompts of the admin's upstream MCP servers, passed through /mcp (issue 30) under the same
// server-level gates as their tools (isMcpServerUsable: the allow-lists in force for the caller's context, the
// server's modes and owner-only flag). A server the context may not use contributes nothing to a listing, and a
// read or get naming it is refused with a JSON-RPC error, the same one as for a server that does not exist (a
// caller learns nothing about servers it may not use). A server that is down contributes nothing to a listing;
// a read or get naming it fails with the reason.
//
// Names are namespaced by server id as tools are: upstream-names.ts.
import {
  ErrorCode,
  McpError,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { isAppError } from "@/lib/errors";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { publicErrorMessage } from "@/lib/public-error";
import { log } from "@/lib/log";
import { isMcpServerUsable } from "@/lib/policy";
import { resolveClientPolicy, type ExternalClient } from "@/lib/runs/call-pipeline";
import type { TurnUser } from "@/lib/runs/turn-setup";
import { mcpSupervisor } from "@/lib/tools/mcp";
import {
  namespaceContent,
  namespacedName,
  namespacedUri,
  splitName,
  splitUri,
  UPSTREAM_URI_PREFIX,
} from "./upstream-names";

/** Bounds on what one server may add to one listing (a hostile server could page forever). */
const MAX_PAGES = 10;
const MAX_ITEMS = 500;

type Supervisor = NonNullable<ReturnType<typeof mcpSupervisor>>;
export type UpstreamServers = { servers: ReadonlyMap<string, Supervisor>; maxReadBytes: number };

/** The upstream servers the caller's context may use now, and its read limit. Nothing when the policy is unreadable. */
export async function usableUpstreams(args: {
  user: TurnUser;
  client: ExternalClient;
  workspaceRoot: string;
}): Promise<UpstreamServers> {
  const { policy, registry } = await resolveClientPolicy(args);
  const servers = new Map<string, Supervisor>();
  if (!policy) return { servers, maxReadBytes: 0 };
  const { document } = await loadPolicyDocument();
  const context = { settings: policy.limits, mode: policy.mode, senderIsOwner: policy.context.senderIsOwner };
  for (const config of document.mcpServers) {
    const supervisor = isMcpServerUsable(config, context) ? mcpSupervisor(registry, config.id) : undefined;
    if (supervisor) servers.set(config.id, supervisor);
  }
  return { servers, maxReadBytes: policy.limits.fs.maxReadBytes };
}

function serverOf(upstreams: UpstreamServers, parsed: { serverId: string } | null, what: string): Supervisor {
  const supervisor = parsed ? upstreams.servers.get(parsed.serverId) : undefined;
  if (!parsed)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown ${what}: names here are mcp__<server>__<name>, URIs ${UPSTREAM_URI_PREFIX}<server>/<uri>`,
    );
  if (!supervisor)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown ${what}: no MCP server "${parsed.serverId}" is available to this token's context`,
    );
  return supervisor;
}

/** The upstream failed (down, timed out, refused): a JSON-RPC error saying so, never a stack. */
function upstreamError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const { message } = publicErrorMessage(error, { event: "mcp_upstream_failed" });
  return new McpError(
    isAppError(error) && error.code === "LIMIT_EXCEEDED" ? ErrorCode.InvalidRequest : ErrorCode.InternalError,
    message,
  );
}

type Listed = { resources: Resource; resourceTemplates: ResourceTemplate; prompts: Prompt };

/** Every usable server's resources, templates or prompts, namespaced; a server that fails is left out (and logged). */
export async function listUpstream<K extends keyof Listed>(
  upstreams: UpstreamServers,
  kind: K,
  signal?: AbortSignal,
): Promise<Listed[K][]> {
  const perServer = await Promise.all(
    [...upstreams.servers].map(async ([serverId, supervisor]) => {
      try {
        const items: Listed[K][] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES && items.length < MAX_ITEMS; page++) {
          const result = await supervisor.listPage(kind, cursor, signal);
          items.push(...((result as unknown as Record<K, Listed[K][]>)[kind] ?? []).slice(0, MAX_ITEMS - items.length));
          if (!result.nextCursor || result.nextCursor === cursor) break;
          cursor = result.nextCursor;
        }
        return items.map((item) => namespaceItem(serverId, item));
      } catch (error) {
        log("warn", "mcp_gateway_list_failed", {
          server: serverId,
          kind,
          error: error instanceof Error ? error.message : String(error),
        });
        return [];
      }
    }),
  );
  return perServer.flat();
}

function namespaceItem<T extends Listed[keyof Listed]>(serverId: string, item: T): T {
  const named = { ...item, name: namespacedName(serverId, item.name) };
  if ("uriTemplate" in item) return { ...named, uriTemplate: namespacedUri(serverId, item.uriTemplate) };
  if ("uri" in item) return { ...named, uri: namespacedUri(serverId, item.uri) };
  return named;
}

export async function readUpstreamResource(
  upstreams: UpstreamServers,
  uri: string,
  signal?: AbortSignal,
): Promise<ReadResourceResult> {
  const parsed = splitUri(uri);
  const supervisor = serverOf(upstreams, parsed, "resource");
  const { serverId, rest } = parsed!;
  let result: ReadResourceResult;
  try {
    result = await supervisor.readResource(rest, signal);
  } catch (error) {
    throw upstreamError(error);
  }
  // Bounded like every read (the fs read limit of the context): refused whole rather than cut, so what passes is faithful.
  const size = result.contents.reduce(
    (sum, c) => sum + ("text" in c ? Buffer.byteLength(c.text) : Math.floor((c.blob.length * 3) / 4)),
    0,
  );
  if (size > upstreams.maxReadBytes)
    throw new McpError(
      ErrorCode.InvalidRequest,
      `the resource is ${size} bytes, more than the read limit of ${upstreams.maxReadBytes} bytes`,
    );
  return { ...result, contents: result.contents.map((c) => ({ ...c, uri: namespacedUri(serverId, c.uri) })) };
}

export async function getUpstreamPrompt(
  upstreams: UpstreamServers,
  name: string,
  args: Record<string, string> | undefined,
  signal?: AbortSignal,
): Promise<GetPromptResult> {
  const parsed = splitName(name);
  const supervisor = serverOf(upstreams, parsed, "prompt");
  const { serverId, rest } = parsed!;
  let result: GetPromptResult;
  try {
    result = await supervisor.getPrompt(rest, args, signal);
  } catch (error) {
    throw upstreamError(error);
  }
  return {
    ...result,
    messages: result.messages.map((m) => ({ ...m, content: namespaceContent(serverId, m.content) })),
  };
}

/** Argument completion for a prompt or resource template of a usable server, named as the listings name them. */
export async function completeUpstream(
  upstreams: UpstreamServers,
  params: CompleteRequest["params"],
  signal?: AbortSignal,
): Promise<CompleteResult> {
  const { ref } = params;
  const parsed = ref.type === "ref/prompt" ? splitName(ref.name) : splitUri(ref.uri);
  const supervisor = serverOf(upstreams, parsed, ref.type === "ref/prompt" ? "prompt" : "resource");
  const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: parsed!.rest } : { ...ref, uri: parsed!.rest };
  try {
    return await supervisor.complete({ ...params, ref: upstreamRef }, signal);
  } catch (error) {
    throw upstreamError(error);
  }
}
