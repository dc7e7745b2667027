"use client";
// Renders a plugin tool's content-part result (McpContentOutput from lib/tools/mcp/output.ts) in the chat: text as
// text, images inline (raster types only, sized to the column), resource links and embedded resources as their
// link that opens through the server that returned it (GET /api/mcp/resource, given the session), and the
// truncation marker visible. To be wired into the chat's tool card (components/chat/tool-cards.tsx) for outputs
// where isMcpContentOutput(output) is true.
import type { McpContentOutput, McpContentPart } from "@/lib/tools/mcp/output";

const SAFE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const isWebUrl = (uri: string) => /^https?:\/\//i.test(uri);

const resourceHref = (sessionId: string, server: string, uri: string) =>
  `/api/mcp/resource?${new URLSearchParams({ session: sessionId, server, uri }).toString()}`;

function Part({ part, server, sessionId }: { part: McpContentPart; server: string; sessionId?: string }) {
  switch (part.type) {
    case "text":
      return <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words text-xs">{part.text}</pre>;
    case "image":
      return SAFE_IMAGE_TYPES.has(part.mimeType) ? (
        // eslint-disable-next-line @next/next/no-img-element -- a data URL from a tool result, not an asset
        <img
          src={`data:${part.mimeType};base64,${part.data}`}
          alt="image returned by the tool"
          className="max-h-64 max-w-full rounded border border-slate-200 dark:border-slate-700"
        />
      ) : (
        <p className="text-xs">[image of type {part.mimeType} not shown]</p>
      );
    case "audio":
      return (
        <p className="text-xs">
          [audio {part.mimeType}, {part.bytes} bytes]
        </p>
      );
    case "resource_link":
    case "resource": {
      const label = part.type === "resource_link" && part.name ? part.name : part.uri;
      const href = sessionId ? resourceHref(sessionId, server, part.uri) : isWebUrl(part.uri) ? part.uri : undefined;
      return (
        <div className="text-xs">
          {href ? (
            <a
              href={href}
              target="_blank"
              rel="noopener noreferrer"
              title={part.uri}
              className="text-sky-700 underline dark:text-sky-400"
            >
              {label}
            </a>
          ) : (
            <span title={part.uri}>
              🔗 <code className="font-mono">{label}</code>
            </span>
          )}
          {part.mimeType ? <span className="text-slate-600 dark:text-slate-400"> ({part.mimeType})</span> : null}
          {part.type === "resource" && part.text !== undefined && (
            <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap break-words">{part.text}</pre>
          )}
        </div>
      );
    }
  }
}

export function McpContent({ output, sessionId }: { output: McpContentOutput; sessionId?: string }) {
  return (
    <div className="min-w-0 space-y-1" data-testid="mcp-content">
      {output.parts.map((part, index) => (
        <Part key={index} part={part} server={output.server} sessionId={sessionId} />
      ))}
    </div>
  );
}
