// Provider-safe tool parameter schemas: OpenAI rejects root unions and non-object roots, Gemini rejects a set of
// JSON Schema keywords. Normalizing once here lets every provider receive the same schema.
type JsonObject = Record<string, unknown>;

const GEMINI_UNSUPPORTED_KEYWORDS = new Set([
  "patternProperties",
  "additionalProperties",
  "$schema",
  "$id",
  "$ref",
  "$defs",
  "definitions",
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
]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolveRef(ref: string, defs: JsonObject): JsonObject | undefined {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match?.[1]) return undefined;
  const target = defs[match[1].replace(/~1/g, "/").replace(/~0/g, "~")];
  return isObject(target) ? target : undefined;
}

function literalValue(variant: JsonObject): { ok: true; value: unknown } | { ok: false } {
  if ("const" in variant) return { ok: true, value: variant.const };
  if (Array.isArray(variant.enum) && variant.enum.length === 1) return { ok: true, value: variant.enum[0] };
  return { ok: false };
}

function isNullVariant(variant: unknown): boolean {
  return isObject(variant) && (variant.type === "null" || ("const" in variant && variant.const === null));
}

// Unions of literals become one enum; nullable unions drop the null branch (providers treat absence as null).
function simplifyUnion(variants: unknown[], rest: JsonObject, clean: (value: unknown) => unknown): unknown {
  const nonNull = variants.filter((variant) => !isNullVariant(variant)).map(clean);
  if (nonNull.length === 1 && isObject(nonNull[0])) return { ...rest, ...nonNull[0] };
  const literals = nonNull.filter(isObject).map(literalValue);
  if (nonNull.length > 0 && literals.length === nonNull.length && literals.every((l) => l.ok)) {
    const values = literals.map((l) => (l.ok ? l.value : undefined));
    const types = new Set(values.map((value) => typeof value));
    const type = types.size === 1 ? [...types][0] : undefined;
    return { ...rest, ...(type === "string" || type === "number" || type === "boolean" ? { type } : {}), enum: values };
  }
  return { ...rest, anyOf: nonNull };
}

export function cleanSchemaForGemini(schema: unknown, defs: JsonObject = {}, seen: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((item) => cleanSchemaForGemini(item, defs, seen));
  if (!isObject(schema)) return schema;
  const allDefs = { ...defs, ...(isObject(schema.$defs) ? schema.$defs : {}), ...(isObject(schema.definitions) ? schema.definitions : {}) };
  const clean = (value: unknown) => cleanSchemaForGemini(value, allDefs, seen);
  if (typeof schema.$ref === "string") {
    // A recursive reference cannot be inlined; an open object is the honest approximation.
    if (seen.has(schema.$ref)) return { type: "object" };
    const target = resolveRef(schema.$ref, allDefs);
    const { $ref: _ref, ...siblings } = schema;
    if (!target) return clean(siblings);
    return cleanSchemaForGemini({ ...target, ...siblings }, allDefs, new Set([...seen, schema.$ref]));
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GEMINI_UNSUPPORTED_KEYWORDS.has(key)) continue;
    if (key === "const") {
      out.enum = [value];
    } else if (key === "type" && Array.isArray(value)) {
      const types = value.filter((type) => type !== "null");
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, prop]) => [name, clean(prop)]));
    } else if (key !== "anyOf" && key !== "oneOf") {
      out[key] = isObject(value) || Array.isArray(value) ? clean(value) : value;
    }
  }
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  return variants ? simplifyUnion(variants, out, clean) : out;
}

function mergePropertySchemas(existing: unknown, incoming: unknown): unknown {
  if (!isObject(existing) || !isObject(incoming)) return existing ?? incoming;
  const existingValues = Array.isArray(existing.enum) ? existing.enum : "const" in existing ? [existing.const] : undefined;
  const incomingValues = Array.isArray(incoming.enum) ? incoming.enum : "const" in incoming ? [incoming.const] : undefined;
  if (!existingValues || !incomingValues) return existing;
  const { const: _const, ...rest } = existing;
  return { ...rest, enum: [...new Set([...existingValues, ...incomingValues])] };
}

/** Provider-safe parameters: always a root `type: "object"` schema, root unions flattened, Gemini keywords removed. */
export function normalizeToolParameters(schema: unknown): JsonObject {
  if (!isObject(schema)) return { type: "object", properties: {} };
  const defs = { ...(isObject(schema.$defs) ? schema.$defs : {}), ...(isObject(schema.definitions) ? schema.definitions : {}) };
  const root = typeof schema.$ref === "string" ? { ...(resolveRef(schema.$ref, defs) ?? {}), $defs: defs } : schema;
  const variantKey = Array.isArray(root.anyOf) ? "anyOf" : Array.isArray(root.oneOf) ? "oneOf" : null;
  if (!variantKey) {
    const withType = "type" in root ? root : { ...root, type: "object" };
    const cleaned = cleanSchemaForGemini(withType) as JsonObject;
    if (cleaned.type !== "object") return { type: "object", properties: {} };
    return "properties" in cleaned ? cleaned : { ...cleaned, properties: {} };
  }
  const variants = (root[variantKey] as unknown[]).map((variant) =>
    isObject(variant) && typeof variant.$ref === "string" ? (resolveRef(variant.$ref, defs) ?? variant) : variant,
  );
  const properties: JsonObject = { ...(isObject(root.properties) ? root.properties : {}) };
  let required: string[] | undefined;
  for (const variant of variants) {
    if (!isObject(variant)) continue;
    for (const [name, prop] of Object.entries(isObject(variant.properties) ? variant.properties : {})) {
      properties[name] = name in properties ? mergePropertySchemas(properties[name], prop) : prop;
    }
    // Only a field every variant requires is required in the flattened schema.
    const variantRequired = Array.isArray(variant.required) ? variant.required.filter((r): r is string => typeof r === "string") : [];
    required = required === undefined ? variantRequired : required.filter((name) => variantRequired.includes(name));
  }
  const flattened: JsonObject = {
    type: "object",
    ...(typeof root.title === "string" ? { title: root.title } : {}),
    ...(typeof root.description === "string" ? { description: root.description } : {}),
    properties,
    ...(required && required.length > 0 ? { required } : {}),
    $defs: defs,
  };
  return cleanSchemaForGemini(flattened) as JsonObject;
}
