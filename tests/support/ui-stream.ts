// Reads an AI SDK UI message stream (server-sent events, one JSON chunk per `data:` line) from a Response.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- UI stream chunks carry per-type fields; tests assert them with expect
export type StreamChunk = { type: string; [key: string]: any };

export function parseUiStream(text: string): StreamChunk[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.trim() !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)) as StreamChunk);
}

export async function readUiStream(res: Response): Promise<StreamChunk[]> {
  return parseUiStream(await res.text());
}
