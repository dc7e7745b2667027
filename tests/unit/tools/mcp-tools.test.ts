// The pure parts of MCP plugin tools: names, schema conversion and normalization, definitions from config and
// discovery, output shaping, and header encryption. Connections to a real server are in tests/integration/mcp-*.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parsePolicyDocument, ToolRegistry, type McpServerConfig, type ToolDefinition } from "@/lib/policy";
import { MAX_JSON_DEPTH } from "@/lib/json-depth";
import { sanitizeDeep } from "@/lib/text-sanitize";
import {
  buildMcpToolDefinitions,
  configuredToolStubs,
  decryptHeaders,
  encryptHeaders,
  encryptMcpSecrets,
  decryptEnv,
  maskMcpSecrets,
  SECRET_MASK,
  isDestructive,
  jsonSchemaToZod,
  mcpServerOfToolName,
  mcpToolName,
  isMcpContentOutput,
  mcpApprovalReason,
  mcpOutputToModelContent,
  outputCapFor,
  toToolOutput,
  TRUNCATION_MARKER,
  type McpContentOutput,
  validateJsonSchema,
} from "@/lib/tools/mcp";

function serverConfig(input: Record<string, unknown> = {}): McpServerConfig {
  const parsed = parsePolicyDocument({
    mcpServers: [{ id: "fixture", transport: { type: "stdio", command: "node" }, ...input }],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document.mcpServers[0]!;
}

const ADD_SCHEMA = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  $schema: "http://json-schema.org/draft-07/schema#",
};
const DISCOVERED = [
  {
    name: "echo",
    description: "Echo the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
  },
  { name: "add", description: "Add two numbers.", inputSchema: ADD_SCHEMA },
  { name: "delete_everything", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
];
const noCall = async () => {
  throw new Error("not called in these tests");
};

describe("plugin tool names", () => {
  it("are mcp__<server>__<tool>, lower-cased and provider-safe", () => {
    expect(mcpToolName("fixture", "add")).toBe("mcp__fixture__add");
    expect(mcpToolName("fixture", "Get Weather.v2")).toBe("mcp__fixture__get_weather_v2");
    expect(mcpServerOfToolName("mcp__fixture__get_weather_v2")).toBe("fixture");
    expect(mcpServerOfToolName("read")).toBeUndefined();
  });

  it("an id the policy accepts always splits back out of its tool names, whatever the tool is called (issue 36)", () => {
    const idChar = fc.constantFrom(..."ab0-_");
    const toolChar = fc.constantFrom(..."ab_-.X ");
    fc.assert(
      fc.property(
        fc.string({ unit: idChar, minLength: 1, maxLength: 8 }),
        fc.string({ unit: toolChar, minLength: 1, maxLength: 8 }),
        (id, tool) => {
          const parsed = parsePolicyDocument({ mcpServers: [{ id, transport: { type: "stdio", command: "node" } }] });
          if (!parsed.ok) return;
          const name = mcpToolName(id, tool);
          if (name.length < 64) expect(mcpServerOfToolName(name)).toBe(id);
        },
      ),
      { numRuns: 3000 },
    );
    // The case from the issue: refused when saved, with a message saying why.
    const refused = parsePolicyDocument({
      mcpServers: [{ id: "vic_", transport: { type: "stdio", command: "node" } }],
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues[0]?.message).toMatch(/never doubled, first or last/);
  });

  it("long names are cut to 64 characters with a hash, so two long names stay distinct", () => {
    const a = mcpToolName("fixture", `${"x".repeat(80)}a`);
    const b = mcpToolName("fixture", `${"x".repeat(80)}b`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).toMatch(/^[a-z0-9_-]+$/);
    expect(a).not.toBe(b);
  });
});

describe("input schemas from servers", () => {
  it("become zod schemas that validate arguments before the call", () => {
    const schema = jsonSchemaToZod(ADD_SCHEMA);
    expect(schema.safeParse({ a: 2, b: 3 }).success).toBe(true);
    const bad = schema.safeParse({ a: "2" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["a", "b"]));
  });

  it("enums and array items are enforced", () => {
    const schema = jsonSchemaToZod({
      type: "object",
      properties: { unit: { enum: ["c", "f"] }, days: { type: "array", items: { type: "integer" } } },
    });
    expect(schema.safeParse({ unit: "k" }).success).toBe(false);
    expect(schema.safeParse({ days: [1.5] }).success).toBe(false);
    expect(schema.safeParse({ unit: "c", days: [1, 2] }).success).toBe(true);
  });

  it("an unconvertible schema falls back to the subset validator and still shows the server's properties", () => {
    const server = {
      type: "object",
      properties: { q: { type: "string" }, n: { $ref: "#/$defs/missing" } },
      required: ["q"],
    };
    const schema = jsonSchemaToZod(server);
    expect(schema.safeParse({}).success).toBe(false);
    expect(schema.safeParse({ q: 1 }).success).toBe(false);
    expect(schema.safeParse({ q: "x" }).success).toBe(true);
    expect(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" })).toMatchObject({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("the subset validator covers type, properties, required, enum, items and additionalProperties: false", () => {
    const schema = {
      type: "object",
      properties: { k: { enum: [1, 2] }, l: { type: "array", items: { type: "string" } } },
      required: ["k"],
      additionalProperties: false,
    };
    expect(validateJsonSchema(schema, { k: 1, l: ["a"] })).toEqual([]);
    expect(validateJsonSchema(schema, { k: 3, l: [1], extra: true }).map((p) => p.path.join("."))).toEqual([
      "k",
      "l.0",
      "extra",
    ]);
    expect(validateJsonSchema(schema, [])).toEqual([{ path: [], message: "expected object, received array" }]);
  });

  it("pass through normalizeToolParameters before the model sees them (root unions flattened, no $schema dialect clash)", () => {
    const union = {
      anyOf: [
        { type: "object", properties: { a: { type: "string" } } },
        { type: "object", properties: { b: { type: "number" } } },
      ],
    };
    const config = serverConfig({ allowedModes: ["coding"] });
    const { definitions } = buildMcpToolDefinitions(
      config,
      [{ name: "either", inputSchema: union }, ...DISCOVERED],
      noCall,
    );
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    for (const d of definitions) registry.register(d);
    const schemas = registry.getToolsSchemaFor({ allowedTools: definitions.map((d) => d.name) });
    const either = schemas.find((s) => s.function.name === "mcp__fixture__either")!.function.parameters;
    expect(either.type).toBe("object");
    expect(either.anyOf).toBeUndefined();
    expect(either.properties).toMatchObject({ a: { type: "string" }, b: { type: "number" } });
    const add = schemas.find((s) => s.function.name === "mcp__fixture__add")!.function;
    expect(add.description).toBe("Add two numbers.");
    expect(add.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
  });
});

describe("definitions from config and discovery", () => {
  it("declare no modes unless the admin grants them (fail closed)", () => {
    const { definitions } = buildMcpToolDefinitions(serverConfig(), DISCOVERED, noCall);
    expect(definitions.map((d) => [d.name, d.allowedModes, d.group, d.pluginId])).toEqual([
      ["mcp__fixture__echo", [], "plugin", "fixture"],
      ["mcp__fixture__add", [], "plugin", "fixture"],
      ["mcp__fixture__delete_everything", [], "plugin", "fixture"],
    ]);
  });

  it("an approval the admin configured for a tool holds whatever the server annotates (readOnlyHint cannot lift it)", () => {
    const config = serverConfig({ tools: { echo: { requireApproval: true } } });
    const echo = buildMcpToolDefinitions(config, DISCOVERED, noCall).definitions.find(
      (d) => d.serverToolName === "echo",
    );
    expect(DISCOVERED[0]!.annotations).toEqual({ readOnlyHint: true });
    expect(echo).toMatchObject({
      requiresApproval: true,
      approvalReason: expect.stringMatching(/admin requires approval for every call of echo/),
    });
  });

  it("take modes and owner-only per server, replaced per tool", () => {
    const config = serverConfig({
      allowedModes: ["coding"],
      ownerOnly: true,
      tools: { add: { allowedModes: ["chat_safe", "coding"], ownerOnly: false } },
    });
    const byName = Object.fromEntries(
      buildMcpToolDefinitions(config, DISCOVERED, noCall).definitions.map((d) => [d.serverToolName, d]),
    );
    expect(byName.echo).toMatchObject({ allowedModes: ["coding"], ownerOnly: true });
    expect(byName.add).toMatchObject({ allowedModes: ["chat_safe", "coding"], ownerOnly: false });
  });

  it("keep annotations; with requireApprovalForDestructive only tools marked safe run without approval", () => {
    const off = buildMcpToolDefinitions(serverConfig(), DISCOVERED, noCall).definitions;
    expect(off.every((d) => d.requiresApproval !== true)).toBe(true);
    expect(off[0]?.annotations).toEqual({ readOnlyHint: true });
    const on = buildMcpToolDefinitions(
      serverConfig({ requireApprovalForDestructive: true }),
      DISCOVERED,
      noCall,
    ).definitions;
    expect(on.map((d) => [d.serverToolName, d.requiresApproval === true])).toEqual([
      ["echo", false],
      ["add", true],
      ["delete_everything", true],
    ]);
    expect(isDestructive({ readOnlyHint: false, destructiveHint: false })).toBe(false);
    expect(isDestructive(undefined)).toBe(true);
  });

  it("skip a second tool whose name sanitizes to an existing one", () => {
    const { definitions, skipped } = buildMcpToolDefinitions(
      serverConfig(),
      [{ name: "Add" }, { name: "add" }],
      noCall,
    );
    expect(definitions.map((d) => d.serverToolName)).toEqual(["Add"]);
    expect(skipped).toEqual(["add"]);
  });

  it("stubs exist for tools named in the config, with a permissive schema", () => {
    const stubs = configuredToolStubs(serverConfig({ tools: { add: { allowedModes: ["coding"] } } }));
    const [stub] = buildMcpToolDefinitions(
      serverConfig({ tools: { add: { allowedModes: ["coding"] } } }),
      stubs,
      noCall,
    ).definitions;
    expect(stub).toMatchObject({ name: "mcp__fixture__add", allowedModes: ["coding"] });
    expect(stub?.inputSchema.safeParse({ anything: 1 }).success).toBe(true);
  });

  it("execute calls the server's own tool name and shapes the result", async () => {
    const calls: unknown[] = [];
    const [def] = buildMcpToolDefinitions(serverConfig(), [{ name: "Add" }], async (name, args) => {
      calls.push([name, args]);
      return { content: [{ type: "text", text: "5" }] };
    }).definitions;
    await expect(def!.execute({ a: 2, b: 3 }, { callId: "c1" })).resolves.toBe("5");
    expect(calls).toEqual([["Add", { a: 2, b: 3 }]]);
  });
});

describe("task-required tools, output caps and approval reasons", () => {
  it("hides tools that need MCP tasks", () => {
    const { definitions } = buildMcpToolDefinitions(
      serverConfig(),
      [
        { name: "research", execution: { taskSupport: "required" } },
        { name: "maybe", execution: { taskSupport: "optional" } },
      ],
      async () => ({ content: [] }),
    );
    expect(definitions.map((d) => d.name)).toEqual(["mcp__fixture__maybe"]);
  });

  it("caps by tool override, then server, then the run's fs read limit", () => {
    const ctx = (maxReadBytes: number) => ({ callId: "c", context: { limits: { maxReadBytes } } });
    expect(outputCapFor(serverConfig(), "read", ctx(4096))).toBe(4096);
    expect(outputCapFor(serverConfig({ maxOutputBytes: 2048 }), "read", ctx(4096))).toBe(2048);
    expect(
      outputCapFor(
        serverConfig({ maxOutputBytes: 2048, tools: { read: { maxOutputBytes: 8192 } } }),
        "read",
        ctx(4096),
      ),
    ).toBe(8192);
    expect(outputCapFor(serverConfig(), "read", { callId: "c" })).toBe(512 * 1024);
  });

  it("names the annotation that made a tool ask", () => {
    const config = serverConfig({ requireApprovalForDestructive: true });
    expect(mcpApprovalReason(config, { destructiveHint: true })).toMatch(/marks it destructiveHint: true/);
    expect(mcpApprovalReason(config, undefined)).toMatch(/does not mark it readOnlyHint: true/);
    expect(mcpApprovalReason(config, { readOnlyHint: true })).toBeUndefined();
    expect(mcpApprovalReason(serverConfig(), { destructiveHint: true })).toBeUndefined();
  });
});

describe("tool output", () => {
  const cap = 1024;
  it("prefers structured content, then text, then content parts; an error result throws TOOL_FAILED", () => {
    expect(
      toToolOutput("s", "t", { content: [{ type: "text", text: "x" }], structuredContent: { v: 1 } }, cap),
    ).toEqual({ v: 1 });
    expect(
      toToolOutput(
        "s",
        "t",
        {
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        cap,
      ),
    ).toBe("a\nb");
    const image = { type: "image", data: "AA==", mimeType: "image/png" } as const;
    expect(toToolOutput("s", "t", { content: [image] }, cap)).toEqual({
      type: "mcp-content",
      server: "s",
      tool: "t",
      parts: [{ type: "image", mimeType: "image/png", data: "AA==" }],
    });
    expect(() => toToolOutput("s", "t", { content: [{ type: "text", text: "boom" }], isError: true }, cap)).toThrow(
      /MCP server s: t reported an error: boom/,
    );
  });

  // A few thousand levels of nesting fit in a few kilobytes and overflow the recursive walks before the database
  // (and JSON.stringify itself), so the call's result could not be recorded: the server's text stands in for it.
  it("structured content nested deeper than the limit gives way to the server's text, or to a marker", () => {
    const nested = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels)) as unknown;
    const atLimit = { rows: nested(MAX_JSON_DEPTH - 1) };
    expect(toToolOutput("s", "t", { content: [], structuredContent: atLimit }, cap)).toEqual(atLimit);
    const deeper = { rows: nested(MAX_JSON_DEPTH) };
    expect(
      toToolOutput("s", "t", { content: [{ type: "text", text: "as text" }], structuredContent: deeper }, cap),
    ).toBe("as text");
    expect(toToolOutput("s", "t", { content: [], structuredContent: deeper }, cap)).toBe(
      `${TRUNCATION_MARKER}: structured content nested deeper than ${MAX_JSON_DEPTH} levels omitted]`,
    );
    const hostile = toToolOutput(
      "s",
      "t",
      { content: [{ type: "text", text: "[".repeat(20_000) }], structuredContent: { rows: nested(20_000) } },
      64 * 1024,
    );
    expect(hostile).toBe("[".repeat(20_000));
    expect(() => sanitizeDeep({ output: hostile })).not.toThrow();
  });

  it("cuts text at the cap on a character boundary and says so", () => {
    const out = toToolOutput("s", "t", { content: [{ type: "text", text: "é".repeat(1000) }] }, cap) as string;
    expect(out.startsWith("é".repeat(512))).toBe(true);
    expect(out).not.toContain("\uFFFD");
    expect(out).toContain(`${TRUNCATION_MARKER}: 2000 bytes, cap 1024 bytes]`);
    expect(toToolOutput("s", "t", { content: [{ type: "text", text: "short" }] }, cap)).toBe("short");
  });

  it("bounds structured content, images and embedded resources by the same cap", () => {
    const big = { rows: "x".repeat(5000) };
    const structured = toToolOutput("s", "t", { content: [], structuredContent: big }, cap) as string;
    expect(typeof structured).toBe("string");
    expect(structured.length).toBeLessThan(cap + 100);
    const bigImage = { type: "image", data: "A".repeat(4000), mimeType: "image/png" } as const;
    const parts = toToolOutput(
      "s",
      "t",
      {
        content: [
          { type: "text", text: "see:" },
          bigImage,
          { type: "resource", resource: { uri: "file:///a", text: "y".repeat(3000) } },
        ],
      },
      cap,
    );
    expect(isMcpContentOutput(parts)).toBe(true);
    const output = parts as McpContentOutput;
    expect(output.truncated).toBe(true);
    expect(output.parts.some((p) => p.type === "image")).toBe(false);
    expect(JSON.stringify(output).length).toBeLessThan(cap + 600);
    expect(mcpOutputToModelContent(output).map((p) => p.type)).toEqual(["text", "text", "text"]);
  });

  it("every field of every content type counts against the call's cap, whatever a hostile server puts where (issue 36)", () => {
    const str = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.integer({ min: 0, max: 20_000 }).map((n) => '"\u0001é'.repeat(n)),
    );
    const part = fc.oneof(
      fc.record({ type: fc.constant("text"), text: str }),
      fc.record({ type: fc.constant("image"), data: str, mimeType: str }),
      fc.record({ type: fc.constant("audio"), data: str, mimeType: str }),
      fc.record({
        type: fc.constant("resource_link"),
        uri: str,
        name: str,
        title: str,
        description: str,
        mimeType: str,
        annotations: fc.record({ lastModified: str }),
        _meta: fc.record({ junk: str }),
      }),
      fc.record({
        type: fc.constant("resource"),
        resource: fc.oneof(
          fc.record({ uri: str, mimeType: str, text: str }),
          fc.record({ uri: str, mimeType: str, blob: str }),
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), fc.integer({ min: 1024, max: 8192 }), (content, limit) => {
        const output = toToolOutput(
          "s",
          "t",
          { content: [{ type: "image", data: "AA==", mimeType: "image/png" }, ...content] as never },
          limit,
        ) as McpContentOutput;
        // The parts as stored and sent: within the cap, plus one marker.
        expect(Buffer.byteLength(JSON.stringify(output.parts))).toBeLessThanOrEqual(limit + 200);
      }),
      { numRuns: 300 },
    );
    // The issue's case: 5,000 links with long names, descriptions, mimeTypes and URIs.
    const big = "L".repeat(1000);
    const links = Array.from({ length: 5000 }, (_, i) => ({
      type: "resource_link" as const,
      uri: `x://${i}/${big}`,
      name: big,
      description: big,
      mimeType: `text/${big}`,
    }));
    const output = toToolOutput("s", "t", { content: links }, 512 * 1024) as McpContentOutput;
    expect(Buffer.byteLength(JSON.stringify(output))).toBeLessThan(512 * 1024 + 300);
    expect(output.parts.at(-1)).toMatchObject({
      type: "text",
      text: expect.stringMatching(/more content part\(s\) of \d+ bytes omitted/),
    });
  });

  it("turns images into model image parts and resource links into text naming the uri", () => {
    const output = toToolOutput(
      "s",
      "t",
      {
        content: [
          { type: "image", data: "AA==", mimeType: "image/png" },
          { type: "resource_link", uri: "demo://r/1", name: "One" },
        ],
      },
      cap,
    ) as McpContentOutput;
    expect(mcpOutputToModelContent(output)).toEqual([
      { type: "image-data", data: "AA==", mediaType: "image/png" },
      { type: "text", text: '[resource link demo://r/1 "One"]' },
    ]);
  });
});

describe("header secrets", () => {
  const secret = "unit-test-secret-0123456789";

  it("round-trip, bound to the server id and the secret", () => {
    const encrypted = encryptHeaders("remote", { authorization: "Bearer t0k3n" }, secret);
    expect(encrypted).toMatch(/^v1:/);
    expect(encrypted).not.toContain("t0k3n");
    expect(decryptHeaders("remote", encrypted, secret)).toEqual({ authorization: "Bearer t0k3n" });
    expect(() => decryptHeaders("other", encrypted, secret)).toThrow(/cannot be decrypted/);
    expect(() => decryptHeaders("remote", encrypted, "another-secret-0123456789")).toThrow(/cannot be decrypted/);
    const tampered = `v1:${Buffer.from(Buffer.from(encrypted.slice(3), "base64").map((b, i) => (i === 40 ? b ^ 1 : b))).toString("base64")}`;
    expect(() => decryptHeaders("remote", tampered, secret)).toThrow(/cannot be decrypted/);
  });

  it("encryptMcpHeaders leaves no plaintext header in the stored document and keeps existing ciphertext", () => {
    const input = {
      mcpServers: [
        {
          id: "remote",
          transport: { type: "http", url: "https://x.example/mcp", headers: { authorization: "Bearer t0k3n" } },
        },
        { id: "kept", transport: { type: "http", url: "https://y.example/mcp", headersEncrypted: "v1:old" } },
        { id: "local", transport: { type: "stdio", command: "node" } },
      ],
    };
    const stored = encryptMcpSecrets(input, undefined, secret);
    expect(JSON.stringify(stored)).not.toContain("t0k3n");
    expect(stored.mcpServers[1]).toEqual(input.mcpServers[1]);
    expect(stored.mcpServers[2]).toEqual(input.mcpServers[2]);
    const parsed = parsePolicyDocument(stored);
    expect(parsed.ok).toBe(true);
    const transport = parsed.ok ? parsed.document.mcpServers[0]?.transport : undefined;
    expect(transport?.type === "http" && decryptHeaders("remote", transport.headersEncrypted!, secret)).toEqual({
      authorization: "Bearer t0k3n",
    });
    expect(encryptMcpSecrets(null)).toBeNull();
  });

  it("stdio env is encrypted at rest, bound to its server and field, and shown only masked", () => {
    const input = {
      mcpServers: [
        { id: "local", transport: { type: "stdio", command: "node", env: { GITHUB_TOKEN: "ghp_s3cret", LOG: "1" } } },
      ],
    };
    const stored = encryptMcpSecrets(input, undefined, secret);
    expect(JSON.stringify(stored)).not.toContain("ghp_s3cret");
    const t = stored.mcpServers[0]!.transport as { envEncrypted?: string; env?: unknown };
    expect(t.env).toBeUndefined();
    expect(decryptEnv("local", t.envEncrypted!, secret)).toEqual({ GITHUB_TOKEN: "ghp_s3cret", LOG: "1" });
    // The env ciphertext does not open as another server's env, nor as this server's headers.
    expect(() => decryptEnv("other", t.envEncrypted!, secret)).toThrow(/cannot be decrypted/);
    expect(() => decryptHeaders("local", t.envEncrypted!, secret)).toThrow(/cannot be decrypted/);
    expect(parsePolicyDocument(stored).ok).toBe(true);
    const shown = maskMcpSecrets(stored, secret);
    expect(shown.mcpServers[0]!.transport).toEqual({
      type: "stdio",
      command: "node",
      env: { GITHUB_TOKEN: SECRET_MASK, LOG: SECRET_MASK },
    });
    expect(JSON.stringify(shown)).not.toContain(t.envEncrypted!);
  });

  it("a masked value sent back keeps the stored secret; a new value replaces it; an unknown masked one is refused", () => {
    const first = encryptMcpSecrets(
      {
        mcpServers: [
          { id: "local", transport: { type: "stdio", command: "node", env: { TOKEN: "old-token", LOG: "1" } } },
        ],
      },
      undefined,
      secret,
    );
    const edited = {
      mcpServers: [
        { id: "local", transport: { type: "stdio", command: "node", env: { TOKEN: SECRET_MASK, LOG: "2" } } },
      ],
    };
    const second = encryptMcpSecrets(edited, first, secret);
    const sealed = (second.mcpServers[0]!.transport as unknown as { envEncrypted: string }).envEncrypted;
    expect(decryptEnv("local", sealed, secret)).toEqual({ TOKEN: "old-token", LOG: "2" });
    const unknown = {
      mcpServers: [{ id: "local", transport: { type: "stdio", command: "node", env: { OTHER: SECRET_MASK } } }],
    };
    expect(() => encryptMcpSecrets(unknown, first, secret)).toThrow(/masked but no stored value/);
  });

  it("a stored secret does not follow its server to a new URL origin or command; a same-origin edit keeps it", () => {
    const http = (url: string, headers: Record<string, string>) => ({
      mcpServers: [{ id: "remote", transport: { type: "http", url, headers } }],
    });
    const first = encryptMcpSecrets(
      http("https://tools.example/mcp", { authorization: "Bearer t0k3n" }),
      undefined,
      secret,
    );
    // Masked and sent elsewhere: refused, so the token never reaches the new host.
    expect(() =>
      encryptMcpSecrets(http("https://attacker.example/mcp", { authorization: SECRET_MASK }), first, secret),
    ).toThrow(/URL's origin changed/);
    // The ciphertext itself carried along to the new host: refused too.
    const carried = {
      mcpServers: [
        {
          id: "remote",
          transport: {
            type: "http",
            url: "https://attacker.example/mcp",
            headersEncrypted: (first.mcpServers[0]!.transport as { headersEncrypted?: string }).headersEncrypted,
          },
        },
      ],
    };
    expect(() => encryptMcpSecrets(carried, first, secret)).toThrow(/URL's origin changed/);
    // Same origin, other path: kept; a value entered again for the new host: accepted.
    const samePlace = encryptMcpSecrets(
      http("https://tools.example/v2/mcp", { authorization: SECRET_MASK }),
      first,
      secret,
    );
    expect(
      decryptHeaders(
        "remote",
        (samePlace.mcpServers[0]!.transport as unknown as { headersEncrypted: string }).headersEncrypted,
        secret,
      ),
    ).toEqual({ authorization: "Bearer t0k3n" });
    expect(() =>
      encryptMcpSecrets(http("https://attacker.example/mcp", { authorization: "Bearer new" }), first, secret),
    ).not.toThrow();
    // A stdio server's env does not follow a changed command or arguments (which could print it).
    const stdio = (command: string, args: string[]) => ({
      mcpServers: [{ id: "local", transport: { type: "stdio", command, args, env: { TOKEN: SECRET_MASK } } }],
    });
    const local = encryptMcpSecrets(
      {
        mcpServers: [
          { id: "local", transport: { type: "stdio", command: "node", args: ["server.js"], env: { TOKEN: "s3cret" } } },
        ],
      },
      undefined,
      secret,
    );
    expect(() => encryptMcpSecrets(stdio("sh", ["-c", "env"]), local, secret)).toThrow(/command or arguments changed/);
    expect(() => encryptMcpSecrets(stdio("node", ["-e", "console.log(process.env)"]), local, secret)).toThrow(
      /command or arguments changed/,
    );
    expect(() => encryptMcpSecrets(stdio("node", ["server.js"]), local, secret)).not.toThrow();
  });
});
