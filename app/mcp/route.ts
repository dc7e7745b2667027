import { handleMcpRequest } from "@/lib/gateway/mcp-endpoint";

// The MCP gateway for outside agents: authenticated by bearer token, never by the session cookie (lib/gateway).
export const dynamic = "force-dynamic";

export const POST = (request: Request) => handleMcpRequest(request);
export const GET = (request: Request) => handleMcpRequest(request);
export const DELETE = (request: Request) => handleMcpRequest(request);
