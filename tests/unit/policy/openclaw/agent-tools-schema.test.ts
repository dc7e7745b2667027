// Cases from openclaw/openclaw src/agents/agent-tools.schema.test.ts and src/agents/schema/clean-for-gemini.test.ts.
// OpenClaw's `modelProvider: "google"/"gemini"` is our `{ provider: "google" }`; without it the default profile runs.
import { describe, expect, it } from "vitest";
import { cleanSchemaForGemini, normalizeToolParameters, schemaProfileFor } from "@/lib/policy";

const gemini = { provider: "google" } as const;
type Params = { required?: string[]; properties?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
const norm = (schema: unknown, options = {}) => normalizeToolParameters(schema, options) as Params;

describe("agent-tools.schema.test.ts: normalizeToolParameterSchema", () => {
  it("uses Gemini cleanup for OpenAI-compatible providers when the model id is Gemini", () => {
    const schema = {
      type: "object",
      properties: {
        sessionKey: {
          description: "Explicit session key, or null to clear it",
          anyOf: [{ type: "string" }, { type: "null" }],
        },
      },
    };
    expect(norm(schema, { provider: "jjcc", model: "gemini-3.1-pro-preview" })).toEqual({
      type: "object",
      properties: { sessionKey: { type: "string", description: "Explicit session key, or null to clear it" } },
    });
    expect(norm(schema, { provider: "stepfun", model: "step-router-v1" })).toEqual(schema);
    expect(schemaProfileFor("openrouter", "google/gemini-2.5-pro")).toBe("gemini");
    expect(schemaProfileFor("anthropic", "claude-sonnet")).toBe("default");
  });

  it("keeps constraint keywords for OpenAI and Anthropic, strips them for Gemini", () => {
    const schema = {
      type: "object",
      properties: {
        n: { type: "integer", minimum: 1 },
        tags: { type: "array", items: { type: "string", format: "email" }, maxItems: 3 },
      },
    };
    for (const provider of ["openai", "anthropic", "offline"]) expect(norm(schema, { provider })).toEqual(schema);
    expect(norm(schema, gemini)).toEqual({
      type: "object",
      properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
    });
  });

  it("normalizes truly empty schemas to type:object with properties:{}", () => {
    expect(norm({})).toEqual({ type: "object", properties: {} });
  });

  it("leaves top-level allOf schemas unchanged: ours flattens them into one object (providers need an object root)", () => {
    expect(
      norm({
        allOf: [
          { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          { properties: { n: { type: "number" } } },
        ],
      }),
    ).toEqual({
      type: "object",
      properties: { id: { type: "string" }, n: { type: "number" } },
      required: ["id"],
    });
  });

  it("adds missing top-level type for raw object-ish schemas", () => {
    expect(norm({ properties: { q: { type: "string" } }, required: ["q"] })).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("normalizes typed object schemas with missing or invalid properties", () => {
    for (const schema of [
      { type: "object" },
      { type: "object", properties: undefined },
      { type: "object", properties: null },
      { type: "object", properties: [] },
      { type: "object", properties: "invalid" },
    ]) {
      expect(norm(schema)).toEqual({ type: "object", properties: {} });
      expect(norm(schema, gemini)).toEqual({ type: "object", properties: {} });
    }
  });

  it("leaves non-object typed schemas without properties unchanged: ours replaces a non-object root (providers reject it)", () => {
    expect(norm({ type: "array", items: { type: "string" } })).toEqual({ type: "object", properties: {} });
  });

  it("adds permissive items schemas to arrays missing items", () => {
    const input = {
      type: "object",
      properties: {
        entity_hints: { type: "array", description: "Optional entity hints" },
        nested: { type: "object", properties: { ids: { type: "array" } } },
        alternatives: { anyOf: [{ type: "array" }, { type: "string" }] },
      },
    };
    expect(norm(input)).toEqual({
      type: "object",
      properties: {
        entity_hints: { type: "array", description: "Optional entity hints", items: {} },
        nested: { type: "object", properties: { ids: { type: "array", items: {} } } },
        alternatives: { anyOf: [{ type: "array", items: {} }, { type: "string" }] },
      },
    });
  });

  it("inlines local $ref before removing unsupported keywords", () => {
    const cleaned = norm(
      {
        type: "object",
        properties: { foo: { $ref: "#/$defs/Foo" } },
        $defs: { Foo: { type: "string", enum: ["a", "b"] } },
      },
      gemini,
    );
    expect(cleaned.$defs).toBeUndefined();
    expect(cleaned.properties).toEqual({ foo: { type: "string", enum: ["a", "b"] } });
  });

  it("inlines nested local $ref schemas for provider-neutral tools", () => {
    const parent = {
      oneOf: [
        { type: "object", required: ["page_id"], properties: { page_id: { type: "string" } } },
        { type: "object", required: ["database_id"], properties: { database_id: { type: "string" } } },
      ],
    };
    expect(
      norm({
        type: "object",
        required: ["parent"],
        properties: { parent: { $ref: "#/$defs/Parent", description: "Notion parent" } },
        $defs: { Parent: parent },
      }),
    ).toEqual({
      type: "object",
      required: ["parent"],
      properties: { parent: { description: "Notion parent", ...parent } },
    });
  });

  it("inlines refs found inside definitions (a $ref to a definition that itself uses $ref)", () => {
    expect(
      norm({
        type: "object",
        properties: { a: { $ref: "#/$defs/A" } },
        $defs: { A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } }, B: { type: "integer" } },
      }),
    ).toEqual({
      type: "object",
      properties: { a: { type: "object", properties: { b: { type: "integer" } } } },
    });
  });

  it("inlines local $ref schemas that target nested JSON Pointer paths", () => {
    expect(
      norm({
        type: "object",
        properties: {
          pageId: { $ref: "#/$defs/Parent/properties/page_id" },
          legacyDatabaseId: { $ref: "#/definitions/Parent/properties/database_id" },
        },
        $defs: { Parent: { type: "object", properties: { page_id: { type: "string", description: "Page id" } } } },
        definitions: {
          Parent: { type: "object", properties: { database_id: { type: "string", description: "Database id" } } },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        pageId: { type: "string", description: "Page id" },
        legacyDatabaseId: { type: "string", description: "Database id" },
      },
    });
  });

  it("inlines local refs in tuple array items", () => {
    expect(
      norm({
        type: "object",
        properties: { pair: { type: "array", items: [{ $ref: "#/$defs/Foo" }, { $ref: "#/definitions/Bar" }] } },
        $defs: { Foo: { type: "string" } },
        definitions: { Bar: { type: "integer" } },
      }),
    ).toEqual({
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] } },
    });
  });

  it("keeps Swagger 2 definition refs supported", () => {
    expect(
      norm({
        type: "object",
        properties: { pet: { $ref: "#/definitions/Pet" } },
        definitions: { Pet: { type: "object", properties: { id: { type: "integer" } } } },
      }),
    ).toEqual({
      type: "object",
      properties: { pet: { type: "object", properties: { id: { type: "integer" } } } },
    });
  });

  it("inlines OpenAPI 3 component schema refs (nested pointers too)", () => {
    const components = {
      schemas: {
        Pet: { type: "object", required: ["name"], properties: { name: { type: "string", description: "Pet name" } } },
      },
    };
    expect(
      norm({
        type: "object",
        required: ["pet"],
        properties: {
          pet: { $ref: "#/components/schemas/Pet", description: "Pet payload" },
          petName: { $ref: "#/components/schemas/Pet/properties/name" },
        },
        components,
      }),
    ).toEqual({
      type: "object",
      required: ["pet"],
      properties: {
        pet: {
          description: "Pet payload",
          type: "object",
          required: ["name"],
          properties: { name: { type: "string", description: "Pet name" } },
        },
        petName: { type: "string", description: "Pet name" },
      },
    });
  });

  it("a malformed pointer escape names nothing and costs only that property", () => {
    expect(
      norm({ type: "object", properties: { a: { $ref: "#/$defs/100%" }, b: { type: "string" } }, $defs: {} }, gemini),
    ).toEqual({ type: "object", properties: { a: {}, b: { type: "string" } } });
  });

  it("preserves local definitions when a local $ref cannot be resolved", () => {
    const $defs = { Present: { type: "object", properties: { id: { type: "string" } } } };
    expect(norm({ type: "object", properties: { missing: { $ref: "#/$defs/Missing/properties/id" } }, $defs })).toEqual(
      {
        type: "object",
        properties: { missing: { $ref: "#/$defs/Missing/properties/id" } },
        $defs,
      },
    );
    // Gemini has no $ref: the unresolvable reference becomes an open schema.
    expect(norm({ type: "object", properties: { missing: { $ref: "#/$defs/Missing" } }, $defs }, gemini)).toEqual({
      type: "object",
      properties: { missing: {} },
    });
  });

  it("does not treat object-valued schema literals as schemas", () => {
    const payload = {
      type: "object",
      properties: {},
      default: { $ref: "#/components/schemas/NotASchema", not: { x: 1 } },
      const: { example: "c" },
      enum: [{ xml: "kept", $ref: "#/x" }],
    };
    expect(norm({ type: "object", properties: { payload } }).properties?.payload).toEqual(payload);
  });

  it("cleans tuple items schemas", () => {
    const tuples = norm(
      {
        type: "object",
        properties: {
          tuples: {
            type: "array",
            items: [
              { type: "string", format: "uuid" },
              { type: "number", minimum: 1 },
            ],
          },
        },
      },
      gemini,
    ).properties?.tuples;
    expect(tuples).toEqual({ type: "array", items: [{ type: "string" }, { type: "number" }] });
  });

  it("drops null-only union variants without flattening other unions", () => {
    const props = norm(
      {
        type: "object",
        properties: {
          parentId: { anyOf: [{ type: "string" }, { type: "null" }] },
          count: { oneOf: [{ type: "string" }, { type: "number" }] },
        },
      },
      gemini,
    ).properties;
    expect(props?.parentId).toEqual({ type: "string" });
    expect(props?.count).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
  });

  it("strips `not` for Gemini, keeps it for other providers", () => {
    const schema = { type: "object", properties: { s: { type: "string", not: { const: "root" } } } };
    expect(norm(schema, gemini).properties?.s).toEqual({ type: "string" });
    expect(norm(schema).properties?.s).toEqual({ type: "string", not: { const: "root" } });
  });
});

describe("agent-tools.schema.test.ts: normalizeToolParameters", () => {
  it("injects properties:{} for type:object with only additionalProperties (kept outside Gemini)", () => {
    expect(norm({ type: "object", additionalProperties: true })).toEqual({
      type: "object",
      properties: {},
      additionalProperties: true,
    });
    expect(norm({ type: "object", additionalProperties: true }, gemini)).toEqual({ type: "object", properties: {} });
  });

  it("preserves existing properties on type:object schemas", () => {
    expect(norm({ type: "object", properties: { q: { type: "string" } } })).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
    });
  });

  it("keeps a property named __proto__ as an own key", () => {
    const properties = Object.fromEntries([
      ["__proto__", { type: "array" }],
      ["constructor", { type: "string" }],
    ]);
    const out = norm({ type: "object", properties, required: ["__proto__"] });
    expect(Object.hasOwn(out.properties ?? {}, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
    expect(out.properties?.constructor).toEqual({ type: "string" });
    expect(
      Object.hasOwn(norm({ type: "object", properties, required: ["__proto__", "toString"] }, gemini), "required"),
    ).toBe(true);
    expect(norm({ type: "object", properties, required: ["__proto__", "toString"] }, gemini).required).toEqual([
      "__proto__",
    ]);
  });

  it("filters required to match properties when flattening anyOf for Gemini", () => {
    const params = norm(
      {
        type: "object",
        required: ["action", "amount", "token"],
        anyOf: [
          { type: "object", properties: { action: { type: "string", enum: ["buy"] }, amount: { type: "number" } } },
          { type: "object", properties: { action: { type: "string", enum: ["sell"] }, price: { type: "number" } } },
        ],
      },
      gemini,
    );
    expect(params.required).toEqual(["action", "amount"]);
    expect(Object.keys(params.properties ?? {})).toEqual(["action", "amount", "price"]);
    expect(params.properties?.action).toEqual({ type: "string", enum: ["buy", "sell"] });
  });

  it("preserves extra required fields for non-Gemini providers", () => {
    expect(
      norm({
        type: "object",
        required: ["action", "token"],
        anyOf: [{ type: "object", properties: { action: { type: "string" } } }],
      }).required,
    ).toEqual(["action", "token"]);
  });

  it("root oneOf keeps the root's required plus what every variant requires", () => {
    const params = norm({
      type: "object",
      required: ["op"],
      oneOf: [
        { properties: { op: { const: "a" }, x: {} }, required: ["x"] },
        { properties: { op: { const: "b" }, x: {}, y: {} }, required: ["x", "y"] },
      ],
    });
    expect(params.required).toEqual(["op", "x"]);
  });

  it("keeps all required fields when they exist in merged properties", () => {
    expect(
      norm(
        {
          type: "object",
          required: ["action", "amount"],
          anyOf: [{ type: "object", properties: { action: { type: "string" }, amount: { type: "number" } } }],
        },
        gemini,
      ).required,
    ).toEqual(["action", "amount"]);
  });

  it("removes required entirely when no fields match merged properties", () => {
    expect(
      norm(
        {
          type: "object",
          required: ["ghost_a", "ghost_b"],
          anyOf: [{ type: "object", properties: { real: { type: "string" } } }],
        },
        gemini,
      ).required,
    ).toBeUndefined();
  });

  it("drops inherited names like toString for Gemini", () => {
    expect(
      norm(
        {
          type: "object",
          required: ["toString", "name"],
          anyOf: [{ type: "object", properties: { name: { type: "string" } } }],
        },
        gemini,
      ).required,
    ).toEqual(["name"]);
  });

  it("prunes undeclared and empty required lists at every depth for Gemini", () => {
    const params = norm(
      {
        type: "object",
        required: [],
        properties: {
          inner: { type: "object", required: ["ghost", "real", "real"], properties: { real: { type: "string" } } },
        },
      },
      gemini,
    );
    expect(params).toEqual({
      type: "object",
      properties: { inner: { type: "object", required: ["real"], properties: { real: { type: "string" } } } },
    });
  });

  it("never throws on unreadable or cyclic input", () => {
    const unreadable = new Proxy([{ type: "string" }], {
      get: (target, key) =>
        key === "0"
          ? (() => {
              throw new Error("no");
            })()
          : Reflect.get(target, key),
    });
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    const throwing = Object.defineProperty({ type: "object" }, "properties", {
      enumerable: true,
      get: () => {
        throw new Error("no");
      },
    });
    for (const options of [{}, gemini]) {
      // The unreadable variant becomes an open schema (dropping it could leave an unsatisfiable anyOf: []).
      expect(norm({ type: "object", properties: { x: { anyOf: unreadable } } }, options).properties?.x).toEqual(
        options === gemini ? {} : { anyOf: [{}] },
      );
      expect(norm(cyclic, options).type).toBe("object");
      expect(norm(throwing, options)).toEqual({ type: "object", properties: {} });
    }
  });
});

describe("schema/clean-for-gemini.test.ts: cleanSchemaForGemini", () => {
  it("flattens anyOf with type as string", () => {
    expect(
      cleanSchemaForGemini({
        anyOf: [
          { type: "string", const: "foo" },
          { type: "string", const: "bar" },
        ],
      }),
    ).toEqual({ type: "string", enum: ["foo", "bar"] });
  });

  it("flattens anyOf with type as single-element array", () => {
    expect(
      cleanSchemaForGemini({
        anyOf: [
          { type: ["string"], const: "foo" },
          { type: ["string"], const: "bar" },
        ],
      }),
    ).toEqual({ type: "string", enum: ["foo", "bar"] });
  });

  it("flattens mixed string and single-element array types", () => {
    expect(
      cleanSchemaForGemini({
        anyOf: [
          { type: "string", const: "foo" },
          { type: ["string"], const: "bar" },
          { type: "string", const: "baz" },
        ],
      }),
    ).toEqual({
      type: "string",
      enum: ["foo", "bar", "baz"],
    });
  });

  it("does not flatten when types differ", () => {
    const result = cleanSchemaForGemini({
      anyOf: [
        { type: ["string"], const: "foo" },
        { type: ["number"], const: 42 },
      ],
    });
    expect(result).toHaveProperty("anyOf");
    expect(result).not.toHaveProperty("enum");
    // Mixed-type literals stay a union (flattening would turn 1 into "1" for the model); each enum is a string list.
    expect(cleanSchemaForGemini({ anyOf: [{ const: "a" }, { const: 1 }] })).toEqual({
      anyOf: [{ enum: ["a"] }, { enum: ["1"] }],
    });
  });

  it("handles multi-element type arrays with null stripping", () => {
    expect(
      cleanSchemaForGemini({
        anyOf: [
          { type: ["string", "null"], const: "foo" },
          { type: ["string", "null"], const: "bar" },
        ],
      }),
    ).toEqual({ type: "string", enum: ["foo", "bar"] });
  });

  it("normalizes deep nullable schemas (2048 levels) without exhausting the stack", () => {
    let value: Record<string, unknown> = { type: "string", format: "date-time" };
    for (let i = 0; i < 2048; i += 1) value = { anyOf: [value, { type: "null" }] };
    expect(cleanSchemaForGemini({ type: "object", properties: { value }, required: ["value"] })).toEqual({
      type: "object",
      properties: { value: { type: "string" } },
      required: ["value"],
    });
  });

  it("a schema object that contains itself: the reference throws a TypeError, ours ends the cycle with an open schema", () => {
    const circular: Record<string, unknown> = { type: "object", properties: {} };
    (circular.properties as Record<string, unknown>).self = circular;
    expect(cleanSchemaForGemini(circular)).toEqual({ type: "object", properties: { self: {} } });
  });

  it.each([
    ["coerces null properties to an empty object", null],
    ["coerces non-object properties to an empty object", "invalid"],
    ["coerces array properties to an empty object", []],
  ])("%s", (_name, properties) => {
    expect(cleanSchemaForGemini({ type: "object", properties })).toEqual({ type: "object", properties: {} });
  });

  it("filters required fields that are not in properties; keeps them when all exist; removes the list when none match", () => {
    const properties = { action: { type: "string" }, amount: { type: "number" } };
    expect(cleanSchemaForGemini({ type: "object", properties, required: ["action", "amount", "token"] })).toMatchObject(
      { required: ["action", "amount"] },
    );
    expect(cleanSchemaForGemini({ type: "object", properties, required: ["action", "amount"] })).toMatchObject({
      required: ["action", "amount"],
    });
    expect(
      cleanSchemaForGemini({ type: "object", properties, required: ["missing_a", "missing_b"] }),
    ).not.toHaveProperty("required");
  });

  it("removes required from object schemas when properties is absent; leaves it for non-object schemas", () => {
    expect(cleanSchemaForGemini({ type: "object", required: ["a", "b"] })).not.toHaveProperty("required");
    expect(cleanSchemaForGemini({ type: "array", required: ["a", "b"] })).toMatchObject({ required: ["a", "b"] });
  });

  it("filters required in nested object properties and array items (the reported 400)", () => {
    const cleaned = cleanSchemaForGemini({
      type: "object",
      properties: {
        config: { type: "object", properties: { name: { type: "string" } }, required: ["name", "ghost"] },
        issue_fields: {
          type: "array",
          items: { type: "object", properties: { summary: { type: "string" } }, required: ["summary", "priority"] },
        },
      },
    });
    expect(cleaned).toMatchObject({
      properties: { config: { required: ["name"] }, issue_fields: { items: { required: ["summary"] } } },
    });
  });

  it("does not treat inherited keys as declared properties", () => {
    expect(
      cleanSchemaForGemini({
        type: "object",
        properties: { name: { type: "string" } },
        required: ["toString", "name"],
      }),
    ).toMatchObject({ required: ["name"] });
  });

  it("coerces nested null properties while preserving valid siblings", () => {
    expect(
      cleanSchemaForGemini({
        type: "object",
        properties: { bad: { type: "object", properties: null }, good: { type: "string" } },
      }),
    ).toEqual({
      type: "object",
      properties: { bad: { type: "object", properties: {} }, good: { type: "string" } },
    });
  });

  it("strips empty required arrays, also nested, and keeps non-empty ones", () => {
    const cleaned = cleanSchemaForGemini({
      type: "object",
      properties: { nested: { type: "object", properties: { optional: { type: "string" } }, required: [] } },
      required: ["nested"],
    });
    expect(cleaned).toMatchObject({ required: ["nested"] });
    expect((cleaned as { properties: { nested: object } }).properties.nested).not.toHaveProperty("required");
    expect(
      cleanSchemaForGemini({ type: "object", properties: { name: { type: "string" } }, required: [] }),
    ).not.toHaveProperty("required");
  });

  it("strips the not keyword from schemas", () => {
    expect(
      cleanSchemaForGemini({ type: "object", not: { const: true }, properties: { name: { type: "string" } } }),
    ).toEqual({ type: "object", properties: { name: { type: "string" } } });
  });

  it("collapses type arrays by stripping null entries, also in nested property schemas", () => {
    expect(cleanSchemaForGemini({ type: ["string", "null"], description: "nullable field" })).toEqual({
      type: "string",
      description: "nullable field",
    });
    expect(
      cleanSchemaForGemini({ type: "object", properties: { agentId: { type: ["string", "null"] } } }),
    ).toMatchObject({ properties: { agentId: { type: "string" } } });
  });

  it.each([
    ["integer enum", { type: "integer", enum: [1, 2, 3] }, { type: "integer", enum: ["1", "2", "3"] }],
    ["boolean enum", { type: "boolean", enum: [true, false] }, { type: "boolean", enum: ["true", "false"] }],
    ["string enum", { type: "string", enum: ["a", "b", "c"] }, { type: "string", enum: ["a", "b", "c"] }],
    ["integer const", { const: 42, type: "integer" }, { enum: ["42"], type: "integer" }],
  ])("stringifies %s values without changing the schema type", (_name, schema, expected) => {
    expect(cleanSchemaForGemini(schema)).toStrictEqual(expected);
  });

  it("drops null/undefined enum entries and de-duplicates; no enum key when nothing is left", () => {
    expect(cleanSchemaForGemini({ type: "integer", enum: [1, 2, 2, null, undefined, 3] })).toMatchObject({
      enum: ["1", "2", "3"],
    });
    expect(cleanSchemaForGemini({ type: "integer", enum: [null, undefined, {}] })).not.toHaveProperty("enum");
  });

  it("stringifies nested numeric enums while preserving their number type", () => {
    const cleaned = cleanSchemaForGemini({
      type: "object",
      properties: {
        outer: { type: "array", items: { type: "object", properties: { score: { type: "number", enum: [1, 2, 3] } } } },
      },
    });
    expect(cleaned).toMatchObject({
      properties: { outer: { items: { properties: { score: { type: "number", enum: ["1", "2", "3"] } } } } },
    });
  });

  it("removes date-time format constraints from nested task schemas", () => {
    const cleaned = cleanSchemaForGemini({
      type: "object",
      properties: {
        logs: {
          type: "array",
          items: { type: "object", properties: { timestamp: { type: "string", format: "date-time" } } },
        },
        created_at: { type: "string", format: "date-time" },
      },
    });
    expect(cleaned).toMatchObject({
      properties: {
        logs: { items: { properties: { timestamp: { type: "string" } } } },
        created_at: { type: "string" },
      },
    });
    expect(JSON.stringify(cleaned)).not.toContain("format");
  });

  it("preserves shared definitions across inline and reference traversal", () => {
    const node = { type: "object", properties: { next: { $ref: "#/$defs/Node" } } };
    const schema = { type: "object", $defs: { Node: node }, properties: { head: node }, required: ["head"] };
    const expected = (end: object) => ({
      type: "object",
      properties: { head: { type: "object", properties: { next: { type: "object", properties: { next: end } } } } },
      required: ["head"],
    });
    // One shared JS object: the walk meets it again on its own path and ends there with {} (as the reference does).
    expect(cleanSchemaForGemini(schema)).toStrictEqual(expected({}));
    // Parsed from JSON (no shared objects): the recursive $ref ends as an open object schema.
    expect(cleanSchemaForGemini(JSON.parse(JSON.stringify(schema)))).toStrictEqual(expected({ type: "object" }));
  });
});
