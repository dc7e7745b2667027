// An HTTP server's replies are bounded like a stdio server's messages: a JSON reply larger than the cap, or one
// server-sent event larger than it, ends the response with an error instead of growing in memory (31 MB of
// resource links once took the app to 1.8 GB). The SDK parses what arrives; it never sees more than the cap at once.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

export function cappedFetch(maxBytes: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const eventStream = /text\/event-stream/i.test(response.headers.get("content-type") ?? "");
    let pending = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          // Bytes since the last event boundary (a blank line): one event may not exceed the cap.
          const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
          const boundary = Math.max(text.lastIndexOf("\n\n"), text.lastIndexOf("\r\n\r\n"));
          pending = boundary >= 0 ? chunk.byteLength - boundary : pending + chunk.byteLength;
        } else pending += chunk.byteLength;
        if (pending > maxBytes) {
          controller.error(new Error(`MCP server reply over the cap of ${maxBytes} bytes`));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
