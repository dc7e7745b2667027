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
      for (const problem of validateJsonSchema(schema, value))
        ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
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

/** How many problems the validator reports: the first ones say what is wrong; 200,000 of them say it no better. */
const MAX_SCHEMA_PROBLEMS = 20;

/**
 * The common subset of JSON Schema; unknown keywords are ignored (the server validates again). Stops at
 * MAX_SCHEMA_PROBLEMS, so a wide value (a long array of wrong items) costs no more than a few problems.
 */
export function validateJsonSchema(schema: unknown, value: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  collectProblems(schema, value, [], problems);
  return problems;
}

function collectProblems(schema: unknown, value: unknown, path: (string | number)[], problems: SchemaProblem[]): void {
  const add = (problem: SchemaProblem) => problems.length < MAX_SCHEMA_PROBLEMS && problems.push(problem);
  if (!isObject(schema) || problems.length >= MAX_SCHEMA_PROBLEMS) return;
  const types =
    typeof schema.type === "string"
      ? [schema.type]
      : Array.isArray(schema.type)
        ? schema.type.filter((t): t is string => typeof t === "string")
        : [];
  if (types.length > 0 && !types.some((t) => matchesType(t, value))) {
    add({ path, message: `expected ${types.join(" or ")}, received ${typeOf(value)}` });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    add({ path, message: `expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}` });
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (typeof key === "string" && !(key in value)) add({ path: [...path, key], message: "required" });
    }
    for (const [key, inner] of Object.entries(value)) {
      if (problems.length >= MAX_SCHEMA_PROBLEMS) return;
      if (key in properties) collectProblems(properties[key], inner, [...path, key], problems);
      else if (schema.additionalProperties === false) add({ path: [...path, key], message: "unexpected property" });
    }
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    for (let index = 0; index < value.length && problems.length < MAX_SCHEMA_PROBLEMS; index += 1)
      collectProblems(schema.items, value[index], [...path, index], problems);
  }
}
