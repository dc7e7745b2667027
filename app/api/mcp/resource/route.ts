import { z } from "zod";
import { requireUser } from "@/lib/auth/guards";
import { handle, parseSearchParams } from "@/lib/http/respond";
import { SessionIdSchema } from "@/lib/http/schemas";
import { MCP_SERVER_ID_PATTERN } from "@/lib/policy";
import { readPluginResource } from "@/lib/tools/mcp/resources";

const Query = z
  .object({
    session: SessionIdSchema,
    server: z.string().min(1).max(32).regex(MCP_SERVER_ID_PATTERN, "not an MCP server id"),
    uri: z.string().min(1).max(2048),
  })
  .strict();

// Opens a resource link a plugin tool returned to this user in this session, through the server that returned it.
export const GET = handle(async (request: Request) => {
  const user = await requireUser();
  const { session, server, uri } = parseSearchParams(request, Query);
  const resource = await readPluginResource({ userId: user.id, sessionId: session, serverId: server, uri });
  return new Response(new Uint8Array(resource.body), {
    headers: {
      "content-type": resource.contentType,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cache-control": "private, no-store",
      ...(resource.download ? { "content-disposition": 'attachment; filename="resource"' } : {}),
    },
  });
});
