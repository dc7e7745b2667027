import { describe, expect, it } from "vitest";
import { z } from "zod";
import { normalizeToolParameters } from "@/lib/policy";

describe("normalizeToolParameters", () => {
  it("P5 flattens a root anyOf into one object schema; only fields required by every variant stay required", () => {
    const schema = {
      anyOf: [
        {
          type: "object",
          properties: { action: { const: "get" }, id: { type: "string" } },
          required: ["action", "id"],
        },
        { type: "object", properties: { action: { const: "list" }, limit: { type: "number" } }, required: ["action"] },
      ],
    };
    expect(normalizeToolParameters(schema)).toEqual({
      type: "object",
      properties: { action: { enum: ["get", "list"] }, id: { type: "string" }, limit: { type: "number" } },
      required: ["action"],
    });
  });

  it("P5 flattens a root oneOf and keeps title/description", () => {
    const out = normalizeToolParameters({
      title: "T",
      description: "D",
      oneOf: [
        { type: "object", properties: { a: { type: "string" } } },
        { type: "object", properties: { b: { type: "string" } } },
      ],
    });
    expect(out).toEqual({
      type: "object",
      title: "T",
      description: "D",
      properties: { a: { type: "string" }, b: { type: "string" } },
    });
    expect(out).not.toHaveProperty("oneOf");
    expect(out).not.toHaveProperty("required");
  });

  it("adds a missing root type: object", () => {
    expect(normalizeToolParameters({ properties: { q: { type: "string" } }, required: ["q"] })).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("returns an empty object schema for a missing or non-object schema", () => {
    expect(normalizeToolParameters(undefined)).toEqual({ type: "object", properties: {} });
    expect(normalizeToolParameters({ type: "string" })).toEqual({ type: "object", properties: {} });
  });

  it("removes keywords Gemini rejects, at every depth (Gemini profile)", () => {
    const out = normalizeToolParameters(
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 5, pattern: "^a", format: "email" },
          tags: { type: "array", items: { type: "string", minLength: 2 }, minItems: 1, uniqueItems: true },
          n: { type: "integer", minimum: 0, maximum: 9, multipleOf: 3 },
        },
      },
      { provider: "google" },
    );
    expect(out).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
        n: { type: "integer" },
      },
    });
  });

  it("turns const into enum, literal unions into one enum, and drops null from nullable unions and type arrays", () => {
    const out = normalizeToolParameters(
      {
        type: "object",
        properties: {
          kind: {
            anyOf: [
              { type: "string", const: "a" },
              { type: "string", const: "b" },
            ],
          },
          note: { anyOf: [{ type: "string" }, { type: "null" }] },
          count: { type: ["integer", "null"] },
          fixed: { const: 3 },
        },
      },
      { provider: "google" },
    );
    expect(out.properties).toEqual({
      kind: { type: "string", enum: ["a", "b"] },
      note: { type: "string" },
      count: { type: "integer" },
      // Gemini takes enum values as strings only.
      fixed: { enum: ["3"] },
    });
  });

  it("inlines $ref from $defs and survives recursion", () => {
    const out = normalizeToolParameters(
      {
        type: "object",
        properties: { node: { $ref: "#/$defs/Node" } },
        $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" }, v: { type: "string" } } } },
      },
      { provider: "google" },
    );
    expect(out).toEqual({
      type: "object",
      properties: { node: { type: "object", properties: { child: { type: "object" }, v: { type: "string" } } } },
    });
  });

  it("handles what zod 4 emits for a discriminated union tool input", () => {
    const input = z.discriminatedUnion("op", [
      z.object({ op: z.literal("add"), a: z.number(), b: z.number() }),
      z.object({ op: z.literal("neg"), a: z.number() }),
    ]);
    const out = normalizeToolParameters(z.toJSONSchema(input));
    expect(out).toMatchObject({ type: "object", required: ["op", "a"] });
    expect(Object.keys(out.properties as object).sort()).toEqual(["a", "b", "op"]);
    expect((out.properties as Record<string, unknown>).op).toEqual({ type: "string", enum: ["add", "neg"] });
    expect(out).not.toHaveProperty("anyOf");
    expect(out).not.toHaveProperty("oneOf");
  });
});
