// JSON Schema plumbing shared by the normalizer and the Gemini cleaner: which keywords hold schemas, own-key writes.
export type JsonObject = Record<string, unknown>;

/** Definition containers: only read through `$ref`, never walked as schemas themselves. */
export const DEFINITION_KEYS = new Set(["$defs", "definitions", "components"]);
export const SCHEMA_VALUED = new Set([
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
]);
export const SCHEMA_ARRAYS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
export const SCHEMA_MAPS = new Set(["patternProperties", "dependentSchemas"]);
/** Far deeper than any real tool schema, shallow enough for the stack; deeper parts become open schemas. */
export const MAX_DEPTH = 1_000;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Defines an own property: `out["__proto__"] = v` would replace the prototype instead of adding a key. */
export function setOwn(out: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

export function uniqueStrings(value: unknown): string[] {
  return Array.isArray(value) ? [...new Set(value.filter((item): item is string => typeof item === "string"))] : [];
}

export function hasType(schema: JsonObject, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}
