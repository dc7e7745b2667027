// Where a JSON syntax error is, whatever the engine's message says (the editor's marker and the "line, column").
import { describe, expect, it } from "vitest";
import { locateJsonError } from "@/components/admin/use-policy-draft";

function errorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("parsed");
}

describe("locateJsonError", () => {
  const text = '{\n  "tools": {\n    "deny": ["exec",]\n  }\n}';

  it("finds a trailing comma on its line, from this engine's message or the grammar", () => {
    const at = locateJsonError(text, errorOf(text));
    expect(at.line).toBe(3);
    expect(text.slice(at.offset, at.offset + 1)).toBe("]");
  });

  it("uses the grammar when the message names no position", () => {
    const at = locateJsonError(text, "Unexpected token ']' is not valid JSON");
    expect(at).toMatchObject({ line: 3, column: text.split("\n")[2]!.indexOf("]") + 1 });
  });

  it("uses a position or line and column the message names", () => {
    expect(locateJsonError("{\n  x\n}", "Unexpected token x in JSON at position 4")).toMatchObject({
      offset: 4,
      line: 2,
      column: 3,
    });
    expect(locateJsonError("{\n  x\n}", "Expected property name (line 2 column 3)")).toMatchObject({
      offset: 4,
      line: 2,
      column: 3,
    });
  });

  it("an unterminated document is marked at its end", () => {
    const open = '{ "tools": {';
    expect(locateJsonError(open, "Unexpected end of JSON input").offset).toBe(open.length);
  });
});
