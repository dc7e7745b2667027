import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { applyHunks, parsePatch } from "@/lib/tools/patch-format";

const update = (...body: string[]) =>
  ["*** Begin Patch", "*** Update File: f.txt", ...body, "*** End Patch"].join("\r\n");

function apply(content: string, patch: string): string {
  const [op] = parsePatch(patch);
  if (op?.kind !== "update") throw new Error("expected an update");
  return applyHunks(op.path, content, op.hunks);
}

describe("patch format", () => {
  it("parses CRLF patches and keeps a missing final newline missing", () => {
    expect(apply("a\nb", update("@@", "-b", "+c"))).toBe("a\nc");
    expect(apply("a\nb\n", update("-b", "+c"))).toBe("a\nc\n");
  });

  it("inserts after an anchor, or at the end when there is none", () => {
    expect(apply("head\nbody\n", update("@@ head", "+inserted"))).toBe("head\ninserted\nbody\n");
    expect(apply("a\n", update("+b"))).toBe("a\nb\n");
    expect(apply("", update("+first"))).toBe("first\n");
  });

  it("matches '*** End of File' hunks at the end and tolerates trailing whitespace differences", () => {
    expect(apply("x\ny\nx\n", update("@@", "-x", "+z", "*** End of File"))).toBe("x\ny\nz\n");
    expect(apply("value = 1   \n", update("-value = 1", "+value = 2"))).toBe("value = 2\n");
  });

  it("applies hunks in order and fails on one that only matches before the previous", () => {
    expect(apply("a\nb\na\n", update("@@", "-b", "+B", "@@", "-a", "+A"))).toBe("a\nB\nA\n");
    expect(() => apply("a\nb\n", update("@@", "-b", "+B", "@@", "-a", "+A"))).toThrow(/hunk 2 of f.txt/);
  });

  it("rejects structural errors with the line number", () => {
    const err = (() => {
      try {
        parsePatch("*** Begin Patch\n*** Update File: f.txt\n?bad\n*** End Patch");
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err?.message).toContain("line 3");
    expect(() => parsePatch("*** Begin Patch\n*** End Patch")).toThrow(/no file operations/);
    expect(() => parsePatch("*** Begin Patch\n*** Delete File: a\n+x\n*** End Patch")).toThrow(/unexpected content/);
  });
});
