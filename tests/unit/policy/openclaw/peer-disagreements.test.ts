// Issue 29, finding 9: the cases where OpenClaw's suites (src/agents/schema/clean-for-gemini.test.ts,
// src/agents/agent-tools.schema.test.ts, src/agents/tool-policy.test.ts) and our engine disagreed, re-expressed
// against ours. Where OpenClaw is right we now agree; where we differ on purpose the test says what we do instead
// and why (docs/requirements.md, "Differences from OpenClaw").
import { describe, expect, it } from "vitest";
import {
  applyOwnerOnlyToolPolicy,
  cleanSchemaForGemini,
  isOwnerOnlyTool,
  normalizeToolParameters,
  OWNER_ONLY_TOOL_NAMES,
} from "@/lib/policy";
import { ALL_TOOLS, parse } from "./helpers";
import { resolveEffectiveToolPolicy, type PolicyContext, type ToolMeta } from "@/lib/policy";

const gemini = { provider: "google" } as const;
type Schema = Record<string, unknown>;

describe("Gemini cleaning: keywords under dependencies, dependentSchemas, if/then/else and prefixItems", () => {
  it("draft-7 dependencies: its schema branches are cleaned like any other (a $ref inlined), its name lists kept", () => {
    const schema = {
      type: "object",
      properties: { card: { type: "string" } },
      dependencies: { card: { properties: { billing: { $ref: "#/$defs/address" } } }, name: ["card"] },
      $defs: { address: { type: "string", format: "email", minLength: 3 } },
    };
    // Other providers: the branch is walked, so its $ref is inlined (the definitions it pointed into are gone).
    const other = normalizeToolParameters(schema) as Schema;
    expect(other.dependencies).toEqual({
      card: { properties: { billing: { type: "string", format: "email", minLength: 3 } } },
      name: ["card"],
    });
    // Gemini has no dependencies keyword: the branch's property joins the schema as an optional one, cleaned.
    const forGemini = normalizeToolParameters(schema, gemini) as Schema;
    expect(forGemini).toEqual({
      type: "object",
      properties: { card: { type: "string" }, billing: { type: "string" } },
    });
  });

  it("dependentSchemas, then and else: OpenClaw passes them to Gemini as they are; ours folds their properties in (Gemini rejects the keywords)", () => {
    const schema = {
      type: "object",
      properties: { mode: { type: "string", enum: ["file", "url"] } },
      required: ["mode"],
      if: { properties: { mode: { const: "file" } } },
      then: { properties: { path: { type: "string", pattern: "^/" } }, required: ["path"] },
      else: { properties: { url: { type: "string", format: "uri" } } },
      dependentSchemas: { path: { properties: { encoding: { type: "string", maxLength: 20 } } } },
    };
    const cleaned = cleanSchemaForGemini(schema) as Schema;
    expect(cleaned).toEqual({
      type: "object",
      properties: {
        mode: { type: "string", enum: ["file", "url"] },
        path: { type: "string" },
        url: { type: "string" },
        encoding: { type: "string" },
      },
      required: ["mode"],
    });
    for (const key of ["if", "then", "else", "dependentSchemas"]) expect(cleaned).not.toHaveProperty(key);
    // Other providers keep the keywords (walked and cleaned of nothing they accept).
    const other = normalizeToolParameters(schema) as Schema;
    expect(other.then).toEqual(schema.then);
    expect(other.dependentSchemas).toEqual(schema.dependentSchemas);
  });

  it("a property the schema declares itself wins over one a branch adds", () => {
    const cleaned = cleanSchemaForGemini({
      type: "object",
      properties: { a: { type: "number" } },
      then: { properties: { a: { type: "string" } } },
    }) as Schema;
    expect(cleaned.properties).toEqual({ a: { type: "number" } });
  });

  it("prefixItems: tuple positions become items for Gemini (one schema, or a union of them), cleaned", () => {
    expect(cleanSchemaForGemini({ type: "array", prefixItems: [{ type: "string", minLength: 1 }] })).toEqual({
      type: "array",
      items: { type: "string" },
    });
    expect(
      cleanSchemaForGemini({ type: "array", prefixItems: [{ type: "string" }, { type: "number", minimum: 0 }] }),
    ).toEqual({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } });
    // Explicit items stay.
    expect(
      cleanSchemaForGemini({ type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }),
    ).toEqual({ type: "array", items: { type: "number" } });
    // Other providers keep the tuple.
    expect(
      (
        normalizeToolParameters({
          type: "object",
          properties: { t: { type: "array", prefixItems: [{ type: "string" }] } },
        }) as Schema
      ).properties,
    ).toEqual({ t: { type: "array", prefixItems: [{ type: "string" }] } });
  });
});

describe("an unreadable anyOf costs only itself", () => {
  const withThrowingAnyOf = (): Schema => {
    const schema: Schema = {
      type: "object",
      properties: { a: { type: "string", description: "kept" } },
      required: ["a"],
    };
    Object.defineProperty(schema, "anyOf", {
      enumerable: true,
      get: () => {
        throw new Error("unreadable");
      },
    });
    return schema;
  };

  it("Gemini: the rest of the schema survives (it was erased to {} before)", () => {
    expect(cleanSchemaForGemini(withThrowingAnyOf())).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "kept" } },
      required: ["a"],
    });
    expect(normalizeToolParameters(withThrowingAnyOf(), gemini)).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "kept" } },
      required: ["a"],
    });
  });

  it("other providers, and a nested property with an unreadable anyOf", () => {
    expect(normalizeToolParameters(withThrowingAnyOf())).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "kept" } },
      required: ["a"],
    });
    const nested = { type: "object", properties: { inner: withThrowingAnyOf(), b: { type: "number" } } };
    expect((normalizeToolParameters(nested, gemini) as Schema).properties).toEqual({
      inner: { type: "object", properties: { a: { type: "string", description: "kept" } }, required: ["a"] },
      b: { type: "number" },
    });
  });
});

describe("owner-only by name (tool-policy.test.ts)", () => {
  it("cron, gateway and whatsapp_login are owner-only whatever their definition says", () => {
    expect([...OWNER_ONLY_TOOL_NAMES].sort()).toEqual(["cron", "gateway", "whatsapp_login"]);
    for (const name of ["cron", "Gateway", " whatsapp_login "]) expect(isOwnerOnlyTool({ name }), name).toBe(true);
    expect(isOwnerOnlyTool({ name: "read" })).toBe(false);
    expect(isOwnerOnlyTool({ name: "read", ownerOnly: true })).toBe(true);
  });

  it("a non-owner sender loses them; an owner keeps them", () => {
    const tools = [
      { name: "cron" },
      { name: "gateway", ownerOnly: false },
      { name: "whatsapp_login" },
      { name: "read" },
    ];
    expect(applyOwnerOnlyToolPolicy(tools, false).map((t) => t.name)).toEqual(["read"]);
    expect(applyOwnerOnlyToolPolicy(tools, true).map((t) => t.name)).toEqual([
      "cron",
      "gateway",
      "whatsapp_login",
      "read",
    ]);
  });

  it("the effective policy refuses them to a non-owner even when the tool's registration forgot the flag", () => {
    // Every tool registered without an ownerOnly flag (whatsapp_login as a channel's tool would be).
    const tools: ToolMeta[] = [...ALL_TOOLS, { name: "whatsapp_login", allowedModes: ["chat_safe", "coding"] }];
    expect(tools.filter((t) => OWNER_ONLY_TOOL_NAMES.has(t.name)).map((t) => t.ownerOnly ?? false)).toEqual([
      false,
      false,
      false,
    ]);
    const context = (senderIsOwner: boolean): PolicyContext => ({
      roles: ["owner"],
      senderIsOwner,
      mode: "coding",
      provider: "openai",
    });
    const document = parse({ tools: { allow: ["*"] } });
    for (const name of OWNER_ONLY_TOOL_NAMES) {
      expect(resolveEffectiveToolPolicy(context(false), { document, tools }).check(name), name).toMatchObject({
        allowed: false,
        layer: "owner_only",
      });
      expect(resolveEffectiveToolPolicy(context(true), { document, tools }).check(name).allowed, name).toBe(true);
    }
  });
});
