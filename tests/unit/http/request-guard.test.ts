// CSRF guard and body helpers, without a server: the integration and browser tests cover them end to end.
import { describe, expect, it } from "vitest";
import { assertStateChangeAllowed, isSameOrigin, safeRedirectPath } from "@/lib/http/request-guard";
import { readBodyText, readJsonBody } from "@/lib/http/body";
import { jsonDepthExceeds } from "@/lib/json-depth";
import { sanitizeDeep, sanitizeText } from "@/lib/text-sanitize";
import { redactHostPaths, publicErrorMessage } from "@/lib/public-error";
import { AppError } from "@/lib/errors";

const req = (method: string, headers: Record<string, string>, body?: BodyInit) =>
  new Request("http://127.0.0.1:3000/api/x", { method, headers, body, duplex: "half" } as RequestInit);

describe("same-origin and content-type guard", () => {
  it("lets reads through and refuses cross-origin or non-JSON state changes", () => {
    expect(() => assertStateChangeAllowed(req("GET", { origin: "http://evil.test" }))).not.toThrow();
    const code = (r: Request) => {
      try {
        assertStateChangeAllowed(r);
        return "ok";
      } catch (e) {
        return (e as AppError).code;
      }
    };
    const json = { "content-type": "application/json" };
    expect(code(req("POST", { ...json, host: "localhost:3000", origin: "http://localhost:3000" }))).toBe("ok");
    expect(code(req("POST", { ...json, host: "localhost:3000", origin: "http://localhost:3001" }))).toBe("FORBIDDEN"); // same site, other port
    expect(code(req("POST", { ...json, host: "localhost:3000", origin: "null" }))).toBe("FORBIDDEN");
    expect(code(req("POST", { ...json, host: "localhost:3000", "sec-fetch-site": "same-site" }))).toBe("FORBIDDEN");
    expect(code(req("POST", { ...json, host: "localhost:3000", "sec-fetch-site": "cross-site" }))).toBe("FORBIDDEN");
    expect(
      code(req("POST", { host: "localhost:3000", origin: "http://localhost:3000", "content-type": "text/plain" })),
    ).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(code(req("POST", { host: "localhost:3000", "content-length": "5" }, "a=b&c"))).toBe(
      "UNSUPPORTED_MEDIA_TYPE",
    ); // untyped body
    expect(code(req("POST", { host: "localhost:3000", "content-type": "multipart/form-data; boundary=x" }))).toBe(
      "UNSUPPORTED_MEDIA_TYPE",
    );
    // Without a body only the origin matters (browsers always send Origin on these methods).
    expect(code(req("DELETE", { host: "localhost:3000", origin: "http://localhost:3000" }))).toBe("ok");
    expect(code(req("DELETE", { host: "localhost:3000", origin: "http://localhost:3001" }))).toBe("FORBIDDEN");
    expect(code(req("PUT", { host: "localhost:3000", "content-type": "application/json; charset=utf-8" }))).toBe("ok");
    expect(isSameOrigin(new Headers({ host: "a:1", origin: "not a url" }))).toBe(false);
  });
});

describe("capped body reading", () => {
  it("refuses a declared length over the cap before reading, and a chunked body once it passes the cap", async () => {
    await expect(readBodyText(req("POST", { "content-length": "2000" }, "x".repeat(2000)), 1000)).rejects.toMatchObject(
      { code: "PAYLOAD_TOO_LARGE" },
    );
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    await expect(readBodyText(req("POST", {}, endless), 10_000)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(pulled).toBeLessThan(20); // it stopped reading instead of draining the stream
  });

  it("refuses invalid UTF-8, deep nesting and bad JSON with 4xx codes, and strips NUL and lone surrogates", async () => {
    await expect(
      readBodyText(req("POST", {}, new Uint8Array([0x7b, 0xed, 0xa0, 0x80, 0x7d])), 100),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const deep = `${"[".repeat(1000)}${"]".repeat(1000)}`;
    expect(jsonDepthExceeds(deep)).toBe(true);
    expect(
      jsonDepthExceeds('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}'),
    ).toBe(false);
    await expect(readJsonBody(req("POST", {}, deep), 10_000)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(readJsonBody(req("POST", {}, "{nope"), 100)).rejects.toMatchObject({ code: "INVALID_JSON" });
    expect(await readJsonBody(req("POST", {}, '{"a":"x\\u0000y","b":["\\ud800z"],"\\u0000k":1}'), 100)).toEqual({
      a: "xy",
      b: ["\ufffdz"],
      k: 1,
    });
  });

  it("sanitizeDeep keeps dates and numbers and cleans nested strings", () => {
    const at = new Date(0);
    expect(sanitizeDeep({ at, n: 1, s: ["a\u0000", { t: "\udc00" }] })).toEqual({
      at,
      n: 1,
      s: ["a", { t: "\ufffd" }],
    });
    expect(sanitizeText("ok")).toBe("ok");
  });
});

describe("public error text", () => {
  it("never shows host paths or database text, and names a request id for unknown errors", () => {
    expect(redactHostPaths("ENOENT: open '/root/work/data/x.db' failed")).toBe("ENOENT: open '<path>' failed");
    expect(redactHostPaths("read notes/todo.md failed")).toBe("read notes/todo.md failed");
    const prisma = new Error(
      "Invalid `prisma.auditLog.findMany()` invocation in /work/app/lib/db/audit.ts:80 value out of range for type timestamp",
    );
    const shown = publicErrorMessage(prisma);
    expect(shown.message).toMatch(/^internal error \(request [0-9a-f]{16}\)$/);
    expect(publicErrorMessage(new AppError("TOOL_FAILED", 'relation "User" violates constraint')).message).toMatch(
      /^internal error/,
    );
    expect(publicErrorMessage(new AppError("NOT_FOUND", "no such file /srv/x/y")).message).toBe("no such file <path>");
    // Our own wording is not mistaken for SQL.
    expect(
      publicErrorMessage(new AppError("FORBIDDEN", "select a mode you were granted; update it in settings")).message,
    ).toMatch(/^select a mode/);
  });
});

describe("safeRedirectPath (after sign-in)", () => {
  it.each([
    ["/admin/audit?user=member", "/admin/audit?user=member"],
    ["/chat/abc", "/chat/abc"],
    ["//evil.example/x", "/chat"],
    ["/\\evil.example/x", "/chat"],
    ["/\t/evil.example", "/chat"],
    ["https://evil.example/", "/chat"],
    ["javascript:alert(1)", "/chat"],
    ["", "/chat"],
    [undefined, "/chat"],
  ])("%s → %s", (next, expected) => {
    expect(safeRedirectPath(next)).toBe(expected);
  });
});
