// What a server's tool list may cost us, applied while listing (page by page, before anything is kept), not after:
// a server answering 500 tools and a nextCursor for ever once took the app from 0.8 to 3.4 GB. Only the fields
// Toolgate uses are kept (name, description, input schema, annotations, execution); everything else a server sends
// (output schemas, icons, _meta) is dropped with the page. What was cut is recorded for the admin's MCP view.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** Pages of tools/list read per discovery; a server still sending a nextCursor after that is cut off. */
export const MAX_LIST_PAGES = 16;
/** A server cannot flood the registry (and every prompt's tool list); tools past it are counted, not kept. */
export const MAX_TOOLS_PER_SERVER = 256;
/** A tool description longer than this is cut (with a marker): every prompt carries it. */
export const MAX_DESCRIPTION_BYTES = 4096;
/** An input schema larger than this (as JSON), or with more properties than the next cap, is refused: cutting a schema would change what it accepts. */
export const MAX_SCHEMA_BYTES = 32 * 1024;
export const MAX_SCHEMA_PROPERTIES = 512;
/** Longer server tool names are refused (the registry name is cut to 64 with a hash, but the name is kept and shown). */
export const MAX_TOOL_NAME_BYTES = 256;
const MAX_TITLE_BYTES = 256;
const MAX_CURSOR_BYTES = 4096;
/** How many cut or refused tools are named in the view; the rest are counted. */
const MAX_NAMED_CUTS = 50;
/** One JSON-RPC message from a server (a page, a call result): larger ones end the connection. Raised per server by its output caps. */
export const MIN_MESSAGE_BYTES = 16 * 1024 * 1024;

export const DESCRIPTION_CUT_MARKER = "[description cut by Toolgate";

export type KeptTool = Pick<Tool, "name" | "description" | "inputSchema" | "annotations" | "execution">;

/** What a listing left out, for the admin's view. Counts are exact; names are the first few. */
export type ListingCuts = {
  pages: number;
  /** The server still had pages after MAX_LIST_PAGES (or repeated a cursor): the rest was never asked for. */
  stoppedPaging: string | null;
  /** Tools on the pages read beyond MAX_TOOLS_PER_SERVER. */
  overLimit: number;
  descriptionsCut: Array<{ name: string; bytes: number }>;
  refused: Array<{ name: string; reason: string }>;
  /** Beyond the names above. */
  moreCut: number;
};

export const emptyCuts = (): ListingCuts => ({
  pages: 0,
  stoppedPaging: null,
  overLimit: 0,
  descriptionsCut: [],
  refused: [],
  moreCut: 0,
});

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

function cutUtf8(text: string, max: number): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= max) return text;
  let end = max;
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString("utf8");
}

/** Counts `properties` entries across the whole schema, stopping as soon as the cap is passed. */
function countProperties(schema: unknown, cap: number): number {
  let count = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0 && count <= cap) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "properties" && value && typeof value === "object" && !Array.isArray(value))
          count += Object.keys(value).length;
        stack.push(value);
      }
    }
  }
  return count;
}

/** Why a schema is refused, or null. JSON size is measured first (cheap, and it bounds the property walk). */
export function schemaProblem(schema: unknown): string | null {
  let json: string;
  try {
    json = JSON.stringify(schema) ?? "";
  } catch {
    return "its input schema cannot be serialised";
  }
  const size = bytes(json);
  if (size > MAX_SCHEMA_BYTES) return `its input schema is ${size} bytes, over the cap of ${MAX_SCHEMA_BYTES}`;
  const properties = countProperties(schema, MAX_SCHEMA_PROPERTIES);
  if (properties > MAX_SCHEMA_PROPERTIES) return `its input schema has more than ${MAX_SCHEMA_PROPERTIES} properties`;
  return null;
}

/**
 * Collects one page into `kept`, within the caps. Returns nothing: `kept` and `cuts` are updated in place so the
 * page itself can be dropped as soon as this returns.
 */
export function collectPage(page: readonly Tool[], kept: KeptTool[], cuts: ListingCuts): void {
  const note = (list: unknown[], entry: unknown) => {
    if (cuts.descriptionsCut.length + cuts.refused.length < MAX_NAMED_CUTS) list.push(entry);
    else cuts.moreCut += 1;
  };
  for (const tool of page) {
    if (kept.length >= MAX_TOOLS_PER_SERVER) {
      cuts.overLimit += 1;
      continue;
    }
    const name = typeof tool.name === "string" ? tool.name : "";
    if (bytes(name) > MAX_TOOL_NAME_BYTES) {
      note(cuts.refused, {
        name: `${cutUtf8(name, 64)}…`,
        reason: `its name is ${bytes(name)} bytes, over the cap of ${MAX_TOOL_NAME_BYTES}`,
      });
      continue;
    }
    const problem = tool.inputSchema === undefined ? null : schemaProblem(tool.inputSchema);
    if (problem) {
      note(cuts.refused, { name, reason: problem });
      continue;
    }
    let description = tool.description;
    if (typeof description === "string" && bytes(description) > MAX_DESCRIPTION_BYTES) {
      note(cuts.descriptionsCut, { name, bytes: bytes(description) });
      description = `${cutUtf8(description, MAX_DESCRIPTION_BYTES)}\n${DESCRIPTION_CUT_MARKER}: ${bytes(description)} bytes, cap ${MAX_DESCRIPTION_BYTES}]`;
    }
    const annotations =
      tool.annotations && typeof tool.annotations.title === "string"
        ? { ...tool.annotations, title: cutUtf8(tool.annotations.title, MAX_TITLE_BYTES) }
        : tool.annotations;
    kept.push({
      name,
      ...(description !== undefined ? { description } : {}),
      inputSchema: tool.inputSchema,
      ...(annotations ? { annotations } : {}),
      ...(tool.execution ? { execution: { taskSupport: tool.execution.taskSupport } } : {}),
    });
  }
}

/** Whether to ask for the next page; records why not when the server wanted more. */
export function nextCursorToFollow(
  cursor: string | undefined,
  seen: Set<string>,
  cuts: ListingCuts,
): string | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  if (cuts.pages >= MAX_LIST_PAGES)
    cuts.stoppedPaging = `the server offered more pages after ${MAX_LIST_PAGES}; the rest were not read`;
  else if (seen.has(cursor)) cuts.stoppedPaging = "the server repeated a page cursor; listing stopped";
  else if (bytes(cursor) > MAX_CURSOR_BYTES)
    cuts.stoppedPaging = `the server's page cursor is over ${MAX_CURSOR_BYTES} bytes; listing stopped`;
  else {
    seen.add(cursor);
    return cursor;
  }
  return undefined;
}

/** The hidden-tools lines the admin view shows for a listing's cuts. */
export function describeCuts(cuts: ListingCuts): Array<{ name: string; reason: string }> {
  const lines = [
    ...cuts.refused.map((r) => ({ name: r.name, reason: `refused: ${r.reason}` })),
    ...cuts.descriptionsCut.map((d) => ({
      name: d.name,
      reason: `description cut from ${d.bytes} bytes to ${MAX_DESCRIPTION_BYTES}`,
    })),
  ];
  if (cuts.overLimit > 0)
    lines.push({
      name: `${cuts.overLimit} more tools`,
      reason: `over the limit of ${MAX_TOOLS_PER_SERVER} tools per server`,
    });
  if (cuts.moreCut > 0) lines.push({ name: `${cuts.moreCut} more tools`, reason: "cut or refused (not named here)" });
  if (cuts.stoppedPaging) lines.push({ name: "tools/list", reason: cuts.stoppedPaging });
  return lines;
}
