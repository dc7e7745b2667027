import "server-only";
// /mcp: Toolgate as an MCP server for outside agents (issue 30), over Streamable HTTP with the SDK's web-standard
// transport, stateless (no Mcp-Session-Id: every POST stands alone, so any instance behind a proxy answers any
// request, and nothing is kept in memory between requests). Order: bearer token (401 + WWW-Authenticate naming
// the resource metadata), the token's rate limit, the capped body (JSON-RPC errors for bad JSON, too large, batch
// abuse), then the SDK. tools/list is the exposure gate for the token's context; tools/call goes through the call
// pipeline (lib/runs/call-pipeline.ts): gate, claim, approval wait, run, record, audit, events. Resources and
// prompts of the upstream servers pass through under the same server gates (upstream.ts). An upstream's progress and
// log messages about a call, read or get reach the client that made it, bounded (notification-relay.ts).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { authenticateBearer, type TokenPrincipal } from "@/lib/auth/access-tokens";
import { consumeTokenQuota } from "@/lib/auth/throttle";
import { loadConfig } from "@/lib/config";
import { isAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/http/body";
import { publicErrorMessage } from "@/lib/public-error";
import { callTool, listClientTools, type ExternalClient } from "@/lib/runs/call-pipeline";
import { authenticateOAuthBearer, looksLikeOAuthAccessToken, type OAuthPrincipal } from "@/lib/oauth/server";
import { withUpstreamRelay } from "@/lib/tools/mcp";
import { NotificationRelay } from "./notification-relay";
import { watchPrincipal } from "./principal-watch";
import { toCallToolResult } from "./results";
import { completeUpstream, getUpstreamPrompt, listUpstream, readUpstreamResource, usableUpstreams } from "./upstream";
import { publicBaseUrl, wwwAuthenticate } from "./base-url";

/** Largest JSON-RPC message body (a tool call's arguments included). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;
/** Messages in one JSON-RPC batch (revision 2025-03-26 allows batches; later ones do not). */
export const MCP_MAX_BATCH = 10;
/** While a call waits for an owner, a progress notification this often (when the client sent a progressToken). */
const PROGRESS_EVERY_MS = 5_000;

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: unknown = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

type McpPrincipal = TokenPrincipal | OAuthPrincipal;

function clientOf(principal: McpPrincipal): ExternalClient {
  // An OAuth client keeps one session per grant, across its rotating access tokens.
  const key = "oauth" in principal ? `oauth:${principal.oauth.grantId}` : `token:${principal.tokenId}`;
  return { key, name: principal.tokenName, mode: principal.mode, agentId: principal.agentId };
}

/** A personal access token (tgp_) or an OAuth access token (tgo_); null when neither is live. */
async function authenticate(header: string | null): Promise<McpPrincipal | null> {
  const value = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? "")?.[1];
  if (value && looksLikeOAuthAccessToken(value)) return authenticateOAuthBearer(value);
  return authenticateBearer(header);
}

function tokenEndedResult(code: "TOKEN_EXPIRED" | "TOKEN_REVOKED", toolName: string): CallToolResult {
  const body = {
    ok: false,
    error_code: code,
    tool_name: toolName,
    message:
      code === "TOKEN_EXPIRED"
        ? "the access token expired while the call waited"
        : "the access token or its grant was revoked while the call waited",
    next_action:
      code === "TOKEN_EXPIRED"
        ? "Refresh the token and make the same call again."
        : "Authorize again; the call did not run.",
  };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

function isValidMessage(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === "2.0"
  );
}

type RequestExtra = { sendNotification: (notification: ServerNotification) => Promise<void> };

/**
 * Runs `work` with the upstream's progress and log messages about it relayed to this request's caller; all of them
 * are sent before the answer. With `waiting`, the gateway's own progress goes out every few seconds meanwhile (a
 * client may reset its timeout on each).
 */
async function relayed<T>(
  extra: RequestExtra,
  progressToken: string | number | undefined,
  level: () => LoggingLevel | undefined,
  work: (relay: NotificationRelay) => Promise<T>,
  waiting?: string,
): Promise<T> {
  const relay = new NotificationRelay((notification) => extra.sendNotification(notification), progressToken, level);
  const timer =
    waiting && progressToken !== undefined
      ? setInterval(() => relay.ownProgress(waiting), PROGRESS_EVERY_MS)
      : undefined;
  try {
    return await withUpstreamRelay(relay.upstream, () => work(relay));
  } finally {
    clearInterval(timer);
    await relay.finish();
  }
}

// A Server makes its own Ajv instance (every format added, its meta-schemas compiled) unless given one: per request
// here, 1.5% of a proxied call's CPU (issue 30). It only checks elicitation answers, which this server never asks for.
let schemaValidator: AjvJsonSchemaValidator | undefined;

function buildServer(principal: McpPrincipal): Server {
  const server = new Server(
    { name: "toolgate", version: "1.0.0" },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      instructions: "Tools governed by Toolgate's policy; some calls wait for an owner's approval.",
      jsonSchemaValidator: (schemaValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  // Stateless: a level set applies to the rest of this POST (a batch), as nothing is kept between requests. It is
  // not passed upstream: an upstream connection serves every client.
  let level: LoggingLevel | undefined;
  const logLevel = () => level;
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    return {};
  });
  const client = clientOf(principal);
  const { workspaceRoot, MCP_APPROVAL_WAIT_SECONDS } = loadConfig();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await listClientTools({ user: principal.user, client, workspaceRoot }),
  }));
  // Resources and prompts of the upstream servers this context may use (upstream.ts); decided again per request.
  const upstreams = () => usableUpstreams({ user: principal.user, client, workspaceRoot });
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
    resources: await listUpstream(await upstreams(), "resources", extra.signal),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => ({
    resourceTemplates: await listUpstream(await upstreams(), "resourceTemplates", extra.signal),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
    relayed(extra, request.params._meta?.progressToken, logLevel, async () =>
      readUpstreamResource(await upstreams(), request.params.uri, extra.signal),
    ),
  );
  server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => ({
    prompts: await listUpstream(await upstreams(), "prompts", extra.signal),
  }));
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) =>
    completeUpstream(await upstreams(), request.params, extra.signal),
  );
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) =>
    relayed(extra, request.params._meta?.progressToken, logLevel, async () =>
      getUpstreamPrompt(await upstreams(), request.params.name, request.params.arguments, extra.signal),
    ),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const toolName = request.params.name;
    const input = request.params.arguments ?? {};
    // A caller's wait ends with its authority (token expiry or revocation, OAuth grant revoked, user deactivated).
    const watch = watchPrincipal(principal);
    try {
      const outcome = await relayed(
        extra,
        request.params._meta?.progressToken,
        logLevel,
        () =>
          callTool({
            user: principal.user,
            client,
            call: { toolCallId: `mcp-${crypto.randomUUID()}`, toolName, input },
            // The same call made again after an earlier one asked for approval settles that one (runs once, if approved).
            settlesRepeat: true,
            workspaceRoot,
            approvalWaitMs: MCP_APPROVAL_WAIT_SECONDS * 1000,
            abortSignal: AbortSignal.any([extra.signal, watch.signal]),
          }),
        "waiting for an owner's approval",
      );
      // A call that ran to the end is answered as it ran; one cut short says why.
      const ended = watch.ended();
      if (ended && outcome.status !== "ok") return tokenEndedResult(ended, toolName);
      return toCallToolResult(outcome, toolName);
    } catch (error) {
      const ended = watch.ended();
      if (ended) return tokenEndedResult(ended, toolName);
      const { message } = publicErrorMessage(error, { event: "mcp_call_failed" });
      const code = isAppError(error) ? error.code : "INTERNAL";
      return {
        isError: true,
        content: [
          {
            type: "text",
            text: JSON.stringify({
              ok: false,
              error_code: code,
              tool_name: toolName,
              message,
              next_action: "Try again later.",
            }),
          },
        ],
      };
    } finally {
      watch.stop();
    }
  });
  return server;
}

export async function handleMcpRequest(request: Request): Promise<Response> {
  // DNS rebinding (the transport spec's Origin rule): a browser page may only reach /mcp from this app's own origin.
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(publicBaseUrl()).origin)
    return rpcError(403, ErrorCode.InvalidRequest, "cross-origin request refused");
  const principal = await authenticate(request.headers.get("authorization"));
  if (!principal) {
    const sent = request.headers.has("authorization");
    return rpcError(
      401,
      ErrorCode.InvalidRequest,
      sent ? "the access token is invalid, expired or revoked" : "an access token is required (Authorization: Bearer)",
      {
        "www-authenticate": wwwAuthenticate(sent ? "invalid_token" : undefined),
      },
    );
  }
  try {
    await consumeTokenQuota(principal.tokenId);
  } catch (error) {
    if (isAppError(error) && error.code === "RATE_LIMITED")
      return rpcError(429, ErrorCode.InvalidRequest, error.message, error.headers);
    return rpcError(503, ErrorCode.InternalError, "the rate limit could not be checked");
  }
  // Stateless: no session to resume (GET) or end (DELETE).
  if (request.method !== "POST")
    return rpcError(405, ErrorCode.ConnectionClosed, "this server is stateless: send each message as a POST", {
      allow: "POST",
    });
  let body: unknown;
  try {
    body = await readJsonBody(request, MCP_MAX_BODY_BYTES);
  } catch (error) {
    if (isAppError(error) && error.code === "PAYLOAD_TOO_LARGE")
      return rpcError(413, ErrorCode.InvalidRequest, error.message);
    return rpcError(400, ErrorCode.ParseError, isAppError(error) ? error.message : "body is not valid JSON");
  }
  if (Array.isArray(body)) {
    if (body.length === 0 || body.length > MCP_MAX_BATCH)
      return rpcError(400, ErrorCode.InvalidRequest, `a batch holds 1 to ${MCP_MAX_BATCH} messages`);
    if (!body.every(isValidMessage))
      return rpcError(400, ErrorCode.InvalidRequest, 'every message needs jsonrpc "2.0"');
  } else if (!isValidMessage(body)) {
    return rpcError(400, ErrorCode.InvalidRequest, "not a JSON-RPC 2.0 message");
  }
  const server = buildServer(principal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  request.signal.addEventListener("abort", () => void transport.close().catch(() => undefined), { once: true });
  return transport.handleRequest(request, { parsedBody: body });
}
