// Provider-safe tool parameter schemas. Every provider needs a root `type: "object"` schema without root unions,
// local `$ref`s inlined and arrays with `items`; only Gemini needs its keyword strip, union flattening and a pruned
// `required` (other providers keep constraints such as minimum, maxItems and format, which guide the model).
import {
  foldGeminiConditionals,
  geminiFixups,
  GEMINI_UNSUPPORTED_KEYWORDS,
  peelNullableWrappers,
  stringifyGeminiEnums,
} from "./schema-gemini";
import {
  DEFINITION_KEYS,
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

/** `gemini` = Google's OpenAPI subset; `default` = OpenAI, Anthropic, the offline model and the rest. */
export type SchemaProfile = "default" | "gemini";

export type NormalizeOptions = { provider?: string; model?: string; profile?: SchemaProfile };

/** Root annotations no provider needs (Anthropic rejects some `$schema` dialects). */
const ROOT_ANNOTATIONS = new Set(["$schema", "$id"]);

export function schemaProfileFor(provider?: string, model?: string): SchemaProfile {
  const p = provider?.trim().toLowerCase() ?? "";
  const m = model?.trim().toLowerCase() ?? "";
  if (p === "google" || p === "gemini" || p.startsWith("google-") || p.includes("vertex")) return "gemini";
  // A Gemini model behind an OpenAI-compatible provider (e.g. "openrouter" + "google/gemini-2.5-pro") has Gemini's limits.
  return m.includes("gemini") ? "gemini" : "default";
}

/** Local JSON Pointer refs only ("#/$defs/A", "#/definitions/A/properties/b", "#/components/schemas/A"). */
function resolvePointer(root: JsonObject, ref: string): JsonObject | undefined {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
    } catch {
      return undefined; // a malformed %-escape names nothing
    }
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node, part)) return undefined;
    node = (node as JsonObject)[part];
  }
  return isObject(node) ? node : undefined;
}

/** `path`: the objects being walked right now, so an object that contains itself becomes an open schema. */
type WalkContext = { root: JsonObject; profile: SchemaProfile; keepDefinitions: boolean; path: Set<object> };

function walkArray(value: unknown[], ctx: WalkContext, refs: ReadonlySet<string>, depth: number): unknown[] {
  const out: unknown[] = [];
  const length = value.length;
  for (let i = 0; i < length; i += 1) {
    // An element that cannot be read (a throwing getter, a revoked proxy) becomes an open schema rather than
    // failing the tool (dropping it could leave an unsatisfiable `anyOf: []`).
    try {
      out.push(walk(value[i], ctx, refs, depth + 1));
    } catch {
      out.push({});
    }
  }
  return out;
}

function walkMap(value: JsonObject, ctx: WalkContext, refs: ReadonlySet<string>, depth: number): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    try {
      setOwn(out, key, walk(value[key], ctx, refs, depth + 1));
    } catch {
      setOwn(out, key, {});
    }
  }
  return out;
}

function inlineRef(schema: JsonObject, ctx: WalkContext, refs: ReadonlySet<string>, depth: number): unknown {
  const ref = schema.$ref as string;
  const siblings: JsonObject = {};
  for (const key of Object.keys(schema)) if (key !== "$ref") setOwn(siblings, key, schema[key]);
  const target = refs.has(ref) ? undefined : resolvePointer(ctx.root, ref);
  if (!target) {
    // Recursive or unresolvable: Gemini cannot express either, an open object is the honest approximation; other
    // providers keep the reference and the definitions it points into.
    if (ctx.profile === "gemini") return refs.has(ref) ? { type: "object" } : walk(siblings, ctx, refs, depth + 1);
    ctx.keepDefinitions = true;
    const kept = walk(siblings, ctx, refs, depth + 1) as JsonObject;
    setOwn(kept, "$ref", ref);
    return kept;
  }
  const merged: JsonObject = {};
  for (const source of [target, siblings]) for (const key of Object.keys(source)) setOwn(merged, key, source[key]);
  return walk(merged, ctx, new Set([...refs, ref]), depth + 1);
}

function walk(node: unknown, ctx: WalkContext, refs: ReadonlySet<string>, depth: number): unknown {
  if (depth > MAX_DEPTH) return {};
  if (typeof node !== "object" || node === null) return node;
  if (ctx.path.has(node)) return {};
  ctx.path.add(node);
  try {
    if (Array.isArray(node)) return walkArray(node, ctx, refs, depth);
    return walkSchema(node as JsonObject, ctx, refs, depth);
  } finally {
    ctx.path.delete(node);
  }
}

/** The node's keywords that can be read: one whose getter throws is dropped alone, not the whole schema with it. */
function readable(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(node)) {
    try {
      setOwn(out, key, node[key]);
    } catch {
      // unreadable: left out
    }
  }
  return out;
}

function walkSchema(raw: JsonObject, ctx: WalkContext, refs: ReadonlySet<string>, depth: number): unknown {
  const node = ctx.profile === "gemini" ? foldGeminiConditionals(readable(peelNullableWrappers(raw))) : readable(raw);
  if (typeof node.$ref === "string") return inlineRef(node, ctx, refs, depth);
  const out: JsonObject = {};
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (DEFINITION_KEYS.has(key) || (ctx.profile === "gemini" && GEMINI_UNSUPPORTED_KEYWORDS.has(key))) continue;
    if (key === "dependencies") {
      // Draft 7: each entry is either the names another property needs (kept) or a schema (walked like any other).
      if (isObject(value))
        setOwn(
          out,
          key,
          Object.fromEntries(
            Object.keys(value).map((name) => [
              name,
              Array.isArray(value[name]) ? uniqueStrings(value[name]) : walk(value[name], ctx, refs, depth + 1),
            ]),
          ),
        );
      continue;
    }
    if (key === "properties") {
      // null, [] or a string is no property map: an object schema then has no declared properties.
      if (isObject(value)) out.properties = walkMap(value, ctx, refs, depth);
      else if (hasType(node, "object")) out.properties = {};
    } else if (key === "items") {
      setOwn(out, key, Array.isArray(value) || isObject(value) ? walk(value, ctx, refs, depth + 1) : value);
    } else if (key === "required") {
      out.required = uniqueStrings(value);
    } else if (SCHEMA_ARRAYS.has(key)) {
      if (Array.isArray(value)) setOwn(out, key, walkArray(value, ctx, refs, depth));
    } else if (SCHEMA_MAPS.has(key)) {
      if (isObject(value)) setOwn(out, key, walkMap(value, ctx, refs, depth));
    } else if (SCHEMA_VALUED.has(key)) {
      setOwn(out, key, walk(value, ctx, refs, depth + 1));
    } else {
      // Literal values (default, const, enum, examples, description...) are data, never schemas to rewrite.
      setOwn(out, key, value);
    }
  }
  // Several providers reject an array schema without items; `{}` admits any element, as the schema meant.
  if (hasType(out, "array") && !Object.hasOwn(out, "items") && !Object.hasOwn(out, "prefixItems")) out.items = {};
  return ctx.profile === "gemini" ? geminiFixups(out) : out;
}

/** Cleans one schema (any node, not only a root) into Gemini's subset. Never throws. */
export function cleanSchemaForGemini(schema: unknown): unknown {
  const root = isObject(schema) ? schema : {};
  try {
    return stringifyGeminiEnums(
      walk(schema, { root, profile: "gemini", keepDefinitions: false, path: new Set() }, new Set(), 0),
    );
  } catch {
    return {};
  }
}

function mergePropertySchemas(existing: unknown, incoming: unknown): unknown {
  if (!isObject(existing) || !isObject(incoming)) return existing ?? incoming;
  const valuesOf = (schema: JsonObject) =>
    Array.isArray(schema.enum) ? schema.enum : Object.hasOwn(schema, "const") ? [schema.const] : undefined;
  const existingValues = valuesOf(existing);
  const incomingValues = valuesOf(incoming);
  if (!existingValues || !incomingValues) return existing;
  const { const: _const, ...rest } = existing;
  return { ...rest, enum: [...new Set([...existingValues, ...incomingValues])] };
}

/** A root anyOf/oneOf/allOf becomes one object: properties merged; required = the root's own list plus what every
 * anyOf/oneOf variant requires (any allOf part requires). */
function flattenRootUnion(root: JsonObject): JsonObject {
  const key = (["anyOf", "oneOf", "allOf"] as const).find((k) => Array.isArray(root[k]));
  if (!key) return root;
  const variants = (root[key] as unknown[]).map((variant) => {
    if (!isObject(variant) || typeof variant.$ref !== "string") return variant;
    const { $ref, ...siblings } = variant;
    return { ...(resolvePointer(root, $ref) ?? {}), ...siblings };
  });
  const properties: JsonObject = {};
  if (isObject(root.properties))
    for (const name of Object.keys(root.properties)) setOwn(properties, name, root.properties[name]);
  let variantRequired: string[] | undefined;
  for (const variant of variants) {
    if (!isObject(variant)) continue;
    const props = isObject(variant.properties) ? variant.properties : {};
    for (const name of Object.keys(props)) {
      setOwn(
        properties,
        name,
        Object.hasOwn(properties, name) ? mergePropertySchemas(properties[name], props[name]) : props[name],
      );
    }
    const own = uniqueStrings(variant.required);
    if (key === "allOf") variantRequired = [...(variantRequired ?? []), ...own];
    else variantRequired = variantRequired === undefined ? own : variantRequired.filter((name) => own.includes(name));
  }
  const required = [...new Set([...uniqueStrings(root.required), ...(variantRequired ?? [])])];
  const out: JsonObject = {};
  for (const name of Object.keys(root)) {
    if (
      name !== "anyOf" &&
      name !== "oneOf" &&
      name !== "allOf" &&
      name !== "type" &&
      name !== "properties" &&
      name !== "required"
    )
      setOwn(out, name, root[name]);
  }
  return { ...out, type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

const emptyParameters = (): JsonObject => ({ type: "object", properties: {} });

function normalizeRoot(schema: unknown, profile: SchemaProfile): JsonObject {
  if (!isObject(schema)) return emptyParameters();
  let root: JsonObject = readable(schema);
  if (typeof root.$ref === "string") {
    const { $ref, ...siblings } = root;
    root = { ...(resolvePointer(schema, $ref) ?? {}), ...siblings };
    for (const key of DEFINITION_KEYS) if (Object.hasOwn(schema, key)) setOwn(root, key, schema[key]);
  }
  root = flattenRootUnion(root);
  const ctx: WalkContext = { root, profile, keepDefinitions: false, path: new Set() };
  const trimmed: JsonObject = {};
  for (const key of Object.keys(root)) if (!ROOT_ANNOTATIONS.has(key)) setOwn(trimmed, key, root[key]);
  const walked = walk(trimmed, ctx, new Set(), 0) as JsonObject;
  const type = walked.type;
  if (type !== undefined && type !== "object" && !(Array.isArray(type) && type.includes("object")))
    return emptyParameters();
  const out: JsonObject = { ...walked, type: "object" };
  if (!isObject(out.properties)) out.properties = {};
  if (ctx.keepDefinitions) for (const key of DEFINITION_KEYS) if (Object.hasOwn(root, key)) setOwn(out, key, root[key]);
  return profile === "gemini" ? (stringifyGeminiEnums(geminiFixups(out)) as JsonObject) : out;
}

/** Provider-safe parameters: always a root `type: "object"` schema. Never throws: an unreadable schema becomes an
 * empty parameter object (the tool's own input schema still validates every call). */
export function normalizeToolParameters(schema: unknown, options: NormalizeOptions = {}): JsonObject {
  const profile = options.profile ?? schemaProfileFor(options.provider, options.model);
  try {
    return normalizeRoot(schema, profile);
  } catch {
    return emptyParameters();
  }
}
