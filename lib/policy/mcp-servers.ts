// MCP server registrations in the policy document. Plugin tools declare no modes of their own: the admin grants
// them here, per server or per tool, and an empty list (the default) keeps them unavailable everywhere.
import { z } from "zod";
import type { SystemToolSettings } from "./system-settings";
import { TOOL_MODES, type ToolMode } from "./types";

const modeList = z.array(z.enum(TOOL_MODES));

/**
 * Lower-case; "_" only between two other characters (never doubled, leading or trailing): the id is part of every
 * tool name (`mcp__<id>__<tool>`), and the first "__" after the prefix must be the separator. With a trailing "_",
 * `vic_` + `out` and `vic` + `_out` both became `mcp__vic___out`, and one server's links were served by the other.
 */
export const MCP_SERVER_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]|_(?=[a-z0-9-]))*$/;
export const MCP_SERVER_ID_RULE =
  "lower-case letters, digits, '-' and '_', where '_' is never doubled, first or last (the id must split back out of mcp__<id>__<tool>)";
export const DEFAULT_MCP_TIMEOUT_MS = 15_000;
/**
 * What the API shows instead of a stored header or env value (they are write-only, lib/tools/mcp/secrets.ts);
 * sent back under the same name it means "keep the stored value". Here so the editor's forms can say "set".
 */
export const SECRET_MASK = "********";

export const McpStdioTransportSchema = z
  .object({
    type: z.literal("stdio"),
    command: z.string().trim().min(1),
    args: z.array(z.string()).default(() => []),
    /** Plaintext env as an editor submits it; the save path replaces it by `envEncrypted`. */
    env: z.record(z.string().min(1), z.string()).optional(),
    /** AES-256-GCM ciphertext of the env (see lib/tools/mcp/secrets.ts); never plaintext at rest. */
    envEncrypted: z.string().min(1).optional(),
    /** Working directory inside the sandbox (bound read-only); default a private /tmp. Never the app or data directory. */
    cwd: z.string().trim().min(1).optional(),
    /** The server always runs in bubblewrap (lib/tools/mcp/stdio-sandbox.ts); these widen it, per server. */
    sandbox: z
      .object({
        /** Network access (a shared network namespace). Off by default. */
        network: z.boolean().default(false),
        /** Absolute paths bound read-only besides the command, its script and that script's node_modules. */
        readOnlyPaths: z
          .array(z.string().trim().startsWith("/"))
          .max(32)
          .default(() => []),
        /** Absolute paths bound writable (a filesystem server's root, a memory file's directory). */
        writablePaths: z
          .array(z.string().trim().startsWith("/"))
          .max(32)
          .default(() => []),
      })
      .strict()
      .default(() => ({ network: false, readOnlyPaths: [], writablePaths: [] })),
  })
  .strict();

export const McpHttpTransportSchema = z
  .object({
    type: z.literal("http"),
    url: z.url({ protocol: /^https?$/ }),
    /** Plaintext headers as an editor submits them; the save path replaces them by `headersEncrypted`. */
    headers: z.record(z.string().min(1), z.string()).optional(),
    /** AES-256-GCM ciphertext of the headers (see lib/tools/mcp/secrets.ts); never plaintext at rest. */
    headersEncrypted: z.string().min(1).optional(),
  })
  .strict();

export const McpToolOverrideSchema = z
  .object({
    allowedModes: modeList.optional(),
    ownerOnly: z.boolean().optional(),
    maxOutputBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional(),
    /** Every call asks for an owner's approval, whatever the server's annotations say (readOnlyHint cannot lift it). */
    requireApproval: z.boolean().optional(),
  })
  .strict();

export const McpServerConfigSchema = z
  .object({
    id: z.string().trim().min(1).max(32).regex(MCP_SERVER_ID_PATTERN, MCP_SERVER_ID_RULE),
    transport: z.discriminatedUnion("type", [McpStdioTransportSchema, McpHttpTransportSchema]),
    /** Modes for every tool of this server. Empty (the default) = no mode: fail closed. */
    allowedModes: modeList.default(() => []),
    ownerOnly: z.boolean().default(false),
    /** Per-tool settings, keyed by the server's tool name; they replace the server-wide values for that tool. */
    tools: z.record(z.string().trim().min(1), McpToolOverrideSchema).default(() => ({})),
    timeoutMs: z.number().int().min(100).max(600_000).default(DEFAULT_MCP_TIMEOUT_MS),
    /** Tools the server does not mark read-only / non-destructive need an owner's approval for every call. */
    requireApprovalForDestructive: z.boolean().default(false),
    /** Cap on what one call returns to the model (text and decoded images); unset = the fs read limit. */
    maxOutputBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional(),
  })
  .strict();

export const McpServersSchema = z.array(McpServerConfigSchema).superRefine((servers, ctx) => {
  const seen = new Set<string>();
  servers.forEach((server, index) => {
    if (seen.has(server.id))
      ctx.addIssue({ code: "custom", path: [index, "id"], message: `duplicate MCP server id "${server.id}"` });
    seen.add(server.id);
  });
});

export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;
export type McpTransportConfig = McpServerConfig["transport"];

/**
 * Whether a context may use a server beyond its tools (its resources and prompts, which the gateway passes through;
 * each tool is decided by the policy on its own). The same server-level gates as the tools: the allow-lists in
 * force for the context (system.mcp, tightened by the agent's), the server's own modes (server-wide; a per-tool
 * mode opens that tool only) and its owner-only flag. Fail closed: a server without modes is usable by nobody.
 */
export function isMcpServerUsable(
  server: Pick<McpServerConfig, "id" | "allowedModes" | "ownerOnly">,
  context: { settings: SystemToolSettings; mode: ToolMode; senderIsOwner: boolean },
): boolean {
  const { enabled, allowedServers } = context.settings.mcp;
  if (!enabled || !allowedServers.some((id) => id.trim().toLowerCase() === server.id)) return false;
  if (server.ownerOnly && !context.senderIsOwner) return false;
  return server.allowedModes.includes(context.mode);
}
