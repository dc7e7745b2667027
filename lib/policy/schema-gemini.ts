// Gemini's schema subset: the keywords it rejects, null-branch and literal-union flattening, string-only enums,
// `required` limited to declared own properties. Applied node by node by the normalizer's walk (schema-normalize.ts).
import {
  hasType,
  isObject,
  MAX_DEPTH,
  SCHEMA_ARRAYS,
  SCHEMA_MAPS,
  SCHEMA_VALUED,
  setOwn,
  uniqueStrings,
  type JsonObject,
} from "./schema-json";

export const GEMINI_UNSUPPORTED_KEYWORDS = new Set([
  "patternProperties",
  "additionalProperties",
  "$schema",
  "$id",
  "$ref",
  "$anchor",
  "$comment",
  "examples",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "not",
  "propertyNames",
  "dependentRequired",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
]);

/**
 * Gemini has no conditional or tuple keywords (if/then/else, dependentSchemas, draft-7 `dependencies`,
 * prefixItems). Dropping them would hide from the model the fields they describe, so their content is folded into
 * what Gemini reads first: the properties a `then`, `else` or dependent schema adds join the node's properties as
 * optional ones (a property the node declares itself wins), and tuple positions become `items` (one schema, or a
 * union of them). The walk then cleans the folded parts like any other. The tool's own schema still validates every
 * call, so nothing it enforces is lost.
 */
const FOLDED = new Set(["if", "then", "else", "dependentSchemas", "dependencies", "prefixItems"]);

export function foldGeminiConditionals(node: JsonObject): JsonObject {
  const branches: unknown[] = [];
  for (const key of ["then", "else"]) if (Object.hasOwn(node, key)) branches.push(node[key]);
  for (const key of ["dependentSchemas", "dependencies"]) {
    const map = node[key];
    if (isObject(map)) for (const name of Object.keys(map)) if (isObject(map[name])) branches.push(map[name]);
  }
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : undefined;
  if (![...FOLDED].some((key) => Object.hasOwn(node, key))) return node;
  const out: JsonObject = {};
  for (const key of Object.keys(node)) if (!FOLDED.has(key)) setOwn(out, key, node[key]);
  const added = branches.flatMap((branch) =>
    isObject(branch) && isObject(branch.properties) ? [branch.properties] : [],
  );
  if (added.length > 0) {
    const properties: JsonObject = isObject(out.properties) ? { ...out.properties } : {};
    for (const props of added)
      for (const name of Object.keys(props))
        if (!Object.hasOwn(properties, name)) setOwn(properties, name, props[name]);
    out.properties = properties;
  }
  if (prefix && prefix.length > 0 && (!Object.hasOwn(out, "items") || out.items === false))
    out.items = prefix.length === 1 ? prefix[0] : { anyOf: prefix };
  return out;
}

/** Gemini: `anyOf: [X, null]` wrappers collapse into X (outer keywords kept unless X sets them), iteratively, so a
 * deeply nested nullable chain does not recurse once per level. */
export function peelNullableWrappers(node: JsonObject): JsonObject {
  let current = node;
  // A union that cannot be read (a throwing getter) is left for the walk, which drops that keyword alone.
  for (let i = 0; i < MAX_DEPTH * 10; i += 1) {
    try {
      const next = peelOnce(current);
      if (next === current) return current;
      current = next;
    } catch {
      return current;
    }
  }
  return current;
}

function peelOnce(current: JsonObject): JsonObject {
  const key = Array.isArray(current.anyOf) ? "anyOf" : Array.isArray(current.oneOf) ? "oneOf" : undefined;
  if (!key || typeof current.$ref === "string") return current;
  const variants = current[key] as unknown[];
  const nonNull = variants.filter((variant) => !isNullVariant(variant));
  const [inner] = nonNull;
  if (nonNull.length !== 1 || nonNull.length === variants.length || !isObject(inner)) return current;
  const merged: JsonObject = {};
  for (const name of Object.keys(current)) if (name !== key) setOwn(merged, name, current[name]);
  for (const name of Object.keys(inner)) setOwn(merged, name, inner[name]);
  return merged;
}

function literalOf(variant: unknown): { value: unknown } | undefined {
  if (!isObject(variant)) return undefined;
  if (Object.hasOwn(variant, "const")) return { value: variant.const };
  if (Array.isArray(variant.enum) && variant.enum.length === 1) return { value: variant.enum[0] };
  return undefined;
}

function isNullVariant(variant: unknown): boolean {
  return isObject(variant) && (variant.type === "null" || literalOf(variant)?.value === null);
}

// Gemini: nullable unions lose the null branch (absence means null), single-type literal unions become one enum,
// everything else stays a union (anyOf; Gemini has no oneOf).
function simplifyUnion(variants: unknown[], rest: JsonObject): JsonObject {
  const nonNull = variants.filter((variant) => !isNullVariant(variant));
  if (nonNull.length === 1 && isObject(nonNull[0])) return geminiFixups({ ...rest, ...nonNull[0] });
  const literals = nonNull.map(literalOf);
  const types = new Set(literals.map((literal) => typeof literal?.value));
  const [type] = [...types];
  const sameType = types.size === 1 && (type === "string" || type === "number" || type === "boolean");
  if (nonNull.length > 0 && sameType && literals.every((literal) => literal !== undefined)) {
    return { ...rest, type, enum: literals.map((literal) => literal?.value) };
  }
  return { ...rest, anyOf: nonNull };
}

/** Gemini takes enum values as strings only: numbers and booleans are written out (the type stays), anything else
 * is dropped. Runs last, over the finished tree, so union flattening above still sees the literals' real types. */
export function stringifyGeminiEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stringifyGeminiEnums);
  if (!isObject(node)) return node;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (key === "enum") {
      const kept = (Array.isArray(value) ? value : []).filter(
        (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean",
      );
      const values = [...new Set(kept.map(String))];
      if (values.length > 0) node.enum = values;
      else delete node.enum;
    } else if (key === "properties" || SCHEMA_MAPS.has(key)) {
      if (isObject(value))
        for (const name of Object.keys(value)) setOwn(value, name, stringifyGeminiEnums(value[name]));
    } else if (key === "items" || SCHEMA_ARRAYS.has(key) || SCHEMA_VALUED.has(key)) {
      setOwn(node, key, stringifyGeminiEnums(value));
    }
  }
  return node;
}

export function geminiFixups(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (key === "const") out.enum = [value];
    else if (key === "type" && Array.isArray(value)) {
      const types = value.filter((type) => type !== "null");
      out.type = types.length === 1 ? types[0] : types;
    } else if (key !== "anyOf" && key !== "oneOf") setOwn(out, key, value);
  }
  // Gemini rejects required names that are not declared here (also inherited ones like "toString") and empty lists.
  if (Object.hasOwn(out, "required") && (isObject(out.properties) || hasType(out, "object"))) {
    const declared = isObject(out.properties) ? out.properties : {};
    const required = uniqueStrings(out.required).filter((name) => Object.hasOwn(declared, name));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  return variants ? simplifyUnion(variants, out) : out;
}
