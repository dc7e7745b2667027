// A plugin tool's input schema comes from its server as JSON Schema. The gate validates arguments with zod before
// the call, so the JSON schema becomes a zod schema: z.fromJSONSchema where it can, else a permissive object
// checked by a small validator for the common subset (type, properties, required, enum, items). Either way the
// zod schema renders back to the server's shape, which the registry then normalizes for the provider.
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The server's schema with the root forced to an object (tool arguments are always an object). */
export function rootObjectSchema(input: unknown): JsonSchema {
  const schema = isObject(input) ? { ...input } : {};
  // The dialect marker differs between servers (draft-07, 2020-12); the zod rendering adds its own.
  delete schema.$schema;
  if (schema.type === undefined && !schema.anyOf && !schema.oneOf && !schema.allOf) schema.type = "object";
  return schema;
}

export function jsonSchemaToZod(input: unknown): z.ZodType<Record<string, unknown>> {
  const schema = rootObjectSchema(input);
  try {
    const converted = z.fromJSONSchema(schema as never);
    // Some unsupported keywords only fail on the first parse: probe once so those fall back too. A schema that
    // merely rejects {} (required fields) returns an error result, not an exception, and is kept.
    converted.safeParse({});
    return converted as z.ZodType<Record<string, unknown>>;
  } catch {
    return fallbackSchema(schema);
  }
}

function fallbackSchema(schema: JsonSchema): z.ZodType<Record<string, unknown>> {
  const { properties, required, description } = schema;
  return z
    .looseObject({})
    .superRefine((value, ctx) => {
      for (const problem of validateJsonSchema(schema, value)) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
    })
    .meta({
      ...(isObject(properties) ? { properties } : {}),
      ...(Array.isArray(required) ? { required } : {}),
      ...(typeof description === "string" ? { description } : {}),
    }) as unknown as z.ZodType<Record<string, unknown>>;
}

export type SchemaProblem = { path: (string | number)[]; message: string };

const typeOf = (value: unknown): string => {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
};

function matchesType(expected: string, value: unknown): boolean {
  const actual = typeOf(value);
  return expected === actual || (expected === "number" && actual === "integer");
}

/** The common subset of JSON Schema; unknown keywords are ignored (the server validates again). */
export function validateJsonSchema(schema: unknown, value: unknown, path: (string | number)[] = []): SchemaProblem[] {
  if (!isObject(schema)) return [];
  const problems: SchemaProblem[] = [];
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : [];
  if (types.length > 0 && !types.some((t) => matchesType(t, value))) {
    return [{ path, message: `expected ${types.join(" or ")}, received ${typeOf(value)}` }];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push({ path, message: `expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}` });
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (typeof key === "string" && !(key in value)) problems.push({ path: [...path, key], message: "required" });
    }
    for (const [key, inner] of Object.entries(value)) {
      if (key in properties) problems.push(...validateJsonSchema(properties[key], inner, [...path, key]));
      else if (schema.additionalProperties === false) problems.push({ path: [...path, key], message: "unexpected property" });
    }
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    value.forEach((item, index) => problems.push(...validateJsonSchema(schema.items, item, [...path, index])));
  }
  return problems;
}
