// Configuration, read once from the environment and validated. An invalid value stops start-up with a
// message naming the variable (instrumentation.ts and scripts/start.mjs both call loadConfig()).
import { existsSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import {
  MODEL_PROVIDER_NAMES,
  modelEntry,
  parseModelList,
  type ModelEntry,
  type ModelProvider,
} from "@/lib/models/catalog";

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const ConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .default("file:./data/toolgate.db")
    .refine((v) => /^(file:|postgres(ql)?:\/\/)/.test(v), "must start with file: (SQLite) or postgresql://"),
  AUTH_SECRET: optionalString,
  // A default mode can never grant power: new sessions start in chat_safe and are switched by a permitted user.
  SESSION_DEFAULT_MODE: z
    .string()
    .default("chat_safe")
    .refine(
      (v) => v === "chat_safe",
      "must be chat_safe: new sessions start safe; coding is granted per user by an admin",
    ),
  DEMO_PASSWORD: z.string().min(8, "must be at least 8 characters").default("toolgate-demo"),
  SEED_DEMO_USERS: z.enum(["auto", "true", "false"]).default("auto"),
  WORKSPACE_ROOT: optionalString,
  MODEL_PROVIDER: z.enum(MODEL_PROVIDER_NAMES).default("offline"),
  MODEL_NAME: optionalString,
  /** Several models, `provider:model,…` (lib/models/catalog.ts); the first is the default. Replaces MODEL_PROVIDER/MODEL_NAME. */
  MODELS: optionalString,
  /** Slows the built-in offline model's stream (per chunk): demos, and tests that must catch a turn mid-way. */
  OFFLINE_MODEL_CHUNK_DELAY_MS: z.coerce.number().int().min(0).max(5_000).default(0),
  OPENAI_API_KEY: optionalString,
  ANTHROPIC_API_KEY: optionalString,
  // One base-URL variable per provider; setting another provider's is refused (see parseConfig).
  OPENAI_BASE_URL: z.string().url().optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  OPENAI_COMPATIBLE_BASE_URL: z.string().url().optional(),
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  AUTH_GITHUB_ID: optionalString,
  AUTH_GITHUB_SECRET: optionalString,
  AUTH_OIDC_ISSUER: z.string().url().optional(),
  AUTH_OIDC_ID: optionalString,
  AUTH_OIDC_SECRET: optionalString,
  AUTH_OIDC_NAME: z.string().default("Single sign-on"),
  MAX_MESSAGE_CHARS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  APPROVAL_TTL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  /** How long a chat turn waits for an owner before it ends pending (the request stays in the inbox; issue 31). */
  APPROVAL_TURN_WAIT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(600),
  /** How long a run's lease lasts without a heartbeat before another instance fails the run as abandoned. */
  RUN_LEASE_SECONDS: z.coerce.number().int().min(2).max(3_600).default(30),
  /** The event tailer's safety poll (events another instance committed reach this one by NOTIFY at once). */
  EVENT_POLL_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  // Key of the audit chain's HMAC and checkpoint signatures; never AUTH_SECRET (see lib/db/audit-key.ts).
  AUDIT_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  // Session cookies: short-lived, renewed while in use (sliding), revocable through the user's session version.
  SESSION_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(30 * 86_400)
    .default(8 * 3600),
  SIGNIN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(10),
  /** Wrong passwords one address may try in a day, over all accounts (lib/auth/throttle.ts). */
  SIGNIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(100),
  /** Networks (CIDR, comma-separated) from which an admin is never throttled, decided on the client address after TRUST_PROXY_HOPS. */
  SIGNIN_TRUSTED_NETWORKS: z
    .string()
    .default("")
    .refine(
      (value) => parseNetworks(value) !== null,
      "expected comma-separated networks such as 10.0.0.0/8, 192.168.1.5/32 or fd00::/8",
    ),
  /** Proxies in front of the app whose X-Forwarded-For is trusted (scripts/server.mjs applies it to every request). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  CHAT_TURNS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  APPROVAL_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  /** Egress proxy (issue 28): names connected to a fixed address, private ones allowed ("name=address,..."). */
  EGRESS_HOSTS: z
    .string()
    .default("")
    .refine(
      (value) => parseEgressHosts(value) !== null,
      "expected comma-separated name=address pairs such as registry.test=127.0.0.1",
    ),
  // Outside MCP clients (issue 30): requests per access token per minute, and how long a call that needs an
  // owner waits for the decision before it answers "pending" (under the SDK client's 60 s request timeout).
  MCP_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(300),
  MCP_APPROVAL_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(50),
  // OAuth 2.1 for /mcp (lib/oauth): access token lifetime, the global ceiling on dynamic client registrations per
  // hour (past it /oauth/register answers 429 with Retry-After), and how often expired codes and tokens are pruned.
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  OAUTH_MAX_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(100),
  // Consents per user and client registrations per address, per minute (the credential write quota they share).
  OAUTH_WRITES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20),
  OAUTH_PRUNE_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(3600),
  // The address people and clients reach this app at (OAuth resource metadata, links in e-mails, webhooks and chat
  // messages): never taken from a request's Host header.
  PUBLIC_BASE_URL: optionalString.refine(
    (v) => v === undefined || /^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(v),
    "must be an http(s) URL without query or fragment",
  ),
  // Four eyes: by default an owner cannot decide an approval they requested themselves.
  APPROVALS_SELF_DECISION: z.enum(["deny", "allow"]).default("deny"),
  // Arguments of one approval request, as canonical JSON (the owners' inbox shows them).
  APPROVAL_MAX_ARGS_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1_000_000)
    .default(64 * 1024),
  // Operations (lib/ops, docs/deploy.md): what the console log shows, and who may scrape /metrics from afar.
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  METRICS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 16, "must be at least 16 characters"),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.refine(
    (v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v),
    "must be an http:// or https:// URL",
  ),
  // The generic signed webhook every approval request is posted to (lib/notify/webhook.ts); both or neither.
  APPROVAL_WEBHOOK_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
    .optional(),
  APPROVAL_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  // E-mail to owners (lib/notify/email.ts): smtp://user:pass@host:587 or smtps://…; needs PUBLIC_BASE_URL for its links.
  SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), "must be an smtp:// or smtps:// URL")
    .optional(),
  SMTP_FROM: z.string().trim().min(3).default("Toolgate <toolgate@localhost>"),
  // A Slack-compatible target (lib/notify/slack.ts): the incoming-webhook URL the Block Kit message goes to, and the
  // app's signing secret its interactivity requests are checked with; both or neither.
  SLACK_WEBHOOK_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** First retry of a failed notification after this long, doubling each time (capped at 5 minutes). */
  NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  // Issue 29: bounds on what one member can make the server keep (lib/auth/write-quota.ts, lib/events, lib/audit).
  SESSION_WRITES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  /** Read by scripts/server.mjs: `off` stops the full garbage collection it runs when idle with a grown heap. */
  TOOLGATE_IDLE_GC: z.enum(["on", "off"]).default("on"),
  /** Per-user budget shared by every credential write (new access token, own password change); revoking is never limited. */
  CREDENTIAL_WRITES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(5),
  /** Where signed audit checkpoints are anchored outside the database: `off`, `file:<path>` or an http(s) webhook (lib/audit/witness.ts). */
  AUDIT_WITNESS: z
    .string()
    .default("file:data/audit-witness.jsonl")
    .refine(
      (v) => v === "off" || /^file:.+/.test(v) || /^https?:\/\/./.test(v),
      "must be off, file:<path> or an http(s):// URL",
    ),
  AUDIT_WITNESS_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  AUDIT_WITNESS_TOKEN: optionalString,
  /** Events are kept this long, then pruned in the background; a client resuming from before it starts afresh. */
  EVENT_RETENTION_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(90 * 86_400)
    .default(86_400),
  /** A resuming stream replays at most this many rows of the event log; further behind, it starts afresh. */
  EVENT_REPLAY_MAX_ROWS: z.coerce.number().int().min(10).max(1_000_000).default(2_000),
  /** Open event streams per user across every instance; the oldest is closed (told not to reconnect) when a new one passes it. */
  EVENT_STREAMS_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(32),
  /** An open stream's lease row lives this long unless its instance renews it (every third of it); a crashed instance's streams stop counting then. */
  EVENT_STREAM_LEASE_SECONDS: z.coerce.number().int().min(3).max(3600).default(30),
  AUDIT_WITNESS_LOG_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, "letters, digits and . _ : - only")
    .optional(),
});

/**
 * The model a hosted provider uses when MODEL_NAME is not set. An OpenAI-compatible server (Ollama, vLLM, ...)
 * serves whatever it has pulled, so it has no default: start-up asks for MODEL_NAME instead of the first chat
 * failing.
 */
/** A comma-separated list of CIDR networks as a BlockList, or null when an entry is not one. */
export function parseNetworks(value: string): BlockList | null {
  const list = new BlockList();
  for (const entry of value
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [address = "", bits] = entry.split("/");
    const family = isIP(address);
    if (family === 0) return null;
    const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
    if (
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > (family === 4 ? 32 : 128) ||
      (bits !== undefined && !/^\d+$/.test(bits))
    )
      return null;
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/** Where EGRESS_HOSTS sends a name: an address, and a port that replaces the requested one when given. */
export type EgressHostTarget = { address: string; port?: number };

/**
 * EGRESS_HOSTS ("name=address", "name=127.0.0.1:4873", "name=[::1]:4873", comma-separated): names the egress proxy
 * connects to a fixed address, private ones included (how tests and benches reach local servers, or a site its own
 * mirror); null when an entry is not one.
 */
export function parseEgressHosts(value: string): Map<string, EgressHostTarget> | null {
  const map = new Map<string, EgressHostTarget>();
  for (const entry of value
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [name = "", address = "", ...rest] = entry.split("=").map((part) => part.trim());
    const host = name.toLowerCase().replace(/\.$/, "");
    if (
      !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(host) ||
      /^[0-9.]+$/.test(host)
    )
      return null;
    if (rest.length > 0) return null;
    const withPort = /^(?:\[([0-9a-f:.]+)\]|(\d+\.\d+\.\d+\.\d+)):(\d{1,5})$/i.exec(address);
    const ip = withPort ? (withPort[1] ?? withPort[2] ?? "") : address;
    const port = withPort ? Number(withPort[3]) : undefined;
    if (isIP(ip) === 0 || (port !== undefined && (port < 1 || port > 65_535))) return null;
    map.set(host, port === undefined ? { address: ip } : { address: ip, port });
  }
  return map;
}

export const DEFAULT_MODEL_NAMES: Partial<Record<z.infer<typeof ConfigSchema>["MODEL_PROVIDER"], string>> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
};

const BASE_URL_OF = {
  openai: "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
  "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
} as const;

export type AppConfig = z.infer<typeof ConfigSchema> & {
  databaseProvider: "sqlite" | "postgres";
  /** The base URL of the default (first) model's provider (undefined: the provider's own default endpoint). */
  modelBaseUrl: string | undefined;
  /** Every configured model, the default first (lib/models/catalog.ts). */
  models: ModelEntry[];
  workspaceRoot: string;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function parseConfig(env: Record<string, string | undefined>): AppConfig {
  // Empty strings in the environment mean "not set".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = ConfigSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`));
  }
  const c = result.data;
  const problems: string[] = [];
  const models = modelProblems(c, cleaned, problems);
  if (Boolean(c.APPROVAL_WEBHOOK_URL) !== Boolean(c.APPROVAL_WEBHOOK_SECRET))
    problems.push("APPROVAL_WEBHOOK_URL, APPROVAL_WEBHOOK_SECRET: set both (every request is signed) or neither");
  if (Boolean(c.SLACK_WEBHOOK_URL) !== Boolean(c.SLACK_SIGNING_SECRET))
    problems.push(
      "SLACK_WEBHOOK_URL, SLACK_SIGNING_SECRET: set both (the buttons' requests are verified with the secret) or neither",
    );
  if (c.SMTP_URL && !c.PUBLIC_BASE_URL)
    problems.push("PUBLIC_BASE_URL: required when SMTP_URL is set (the e-mails link to the app)");
  if (c.AUDIT_KEY && c.AUDIT_KEY === c.AUTH_SECRET) problems.push("AUDIT_KEY: must differ from AUTH_SECRET");
  // `next build` loads route modules without serving anything; the secret is only needed to serve.
  const building = env.NEXT_PHASE === "phase-production-build";
  if (c.NODE_ENV === "production" && !c.AUTH_SECRET && !building)
    problems.push("AUTH_SECRET: required in production (npm start sets one)");
  const workspaceRoot = c.WORKSPACE_ROOT ? path.resolve(c.WORKSPACE_ROOT) : defaultWorkspaceRoot(env);
  const checkout = gitCheckoutOf(process.cwd());
  if (checkout && isInside(checkout, workspaceRoot)) {
    problems.push(
      `WORKSPACE_ROOT: ${workspaceRoot} is inside the application's git checkout (${checkout}); commands there would see the app's repository. Choose a directory outside it.`,
    );
  }
  if (problems.length) throw new ConfigError(problems);
  // MODEL_PROVIDER/MODEL_NAME name the default (first) model either way, for the code that knows only one.
  const first = models[0] ?? modelEntry(c.MODEL_PROVIDER, c.MODEL_NAME);
  return {
    ...c,
    MODEL_PROVIDER: first.provider,
    MODEL_NAME: first.model,
    models,
    databaseProvider: /^postgres(ql)?:\/\//.test(c.DATABASE_URL) ? "postgres" : "sqlite",
    modelBaseUrl: modelBaseUrlOf(c, first.provider),
    workspaceRoot,
  };
}

/** The base URL a provider's requests go to (undefined: the provider's own endpoint). */
export function modelBaseUrlOf(c: z.infer<typeof ConfigSchema>, provider: ModelProvider): string | undefined {
  return provider === "offline" ? undefined : c[BASE_URL_OF[provider]];
}

/** The configured models (MODELS, or MODEL_PROVIDER/MODEL_NAME as a one-entry list); what each needs goes to problems. */
function modelProblems(
  c: z.infer<typeof ConfigSchema>,
  env: Record<string, string | undefined>,
  problems: string[],
): ModelEntry[] {
  const listed = c.MODELS !== undefined;
  let models: ModelEntry[];
  if (listed) {
    const parsed = parseModelList(c.MODELS!);
    problems.push(...parsed.problems);
    models = parsed.entries;
    for (const variable of ["MODEL_PROVIDER", "MODEL_NAME"] as const) {
      if (env[variable] !== undefined)
        problems.push(
          `${variable}: set together with MODELS; MODELS is the list of models, so unset ${variable} (or MODELS)`,
        );
    }
  } else {
    if (c.MODEL_PROVIDER === "openai-compatible" && !c.MODEL_NAME)
      problems.push(
        "MODEL_NAME: required when MODEL_PROVIDER=openai-compatible (the model your server serves, e.g. llama3.1)",
      );
    models = [modelEntry(c.MODEL_PROVIDER, c.MODEL_NAME ?? DEFAULT_MODEL_NAMES[c.MODEL_PROVIDER])];
  }
  const providers = new Set(models.map((m) => m.provider));
  const when = (provider: string) => (listed ? `when MODELS lists ${provider}` : `when MODEL_PROVIDER=${provider}`);
  if (providers.has("openai") && !c.OPENAI_API_KEY) problems.push(`OPENAI_API_KEY: required ${when("openai")}`);
  if (providers.has("anthropic") && !c.ANTHROPIC_API_KEY)
    problems.push(`ANTHROPIC_API_KEY: required ${when("anthropic")}`);
  if (providers.has("openai-compatible") && !c.OPENAI_COMPATIBLE_BASE_URL)
    problems.push(`OPENAI_COMPATIBLE_BASE_URL: required ${when("openai-compatible")}`);
  // A hosted key must never go to another provider's URL: a base URL set for a provider that is not configured
  // makes the configuration ambiguous, and start-up stops.
  for (const [provider, variable] of Object.entries(BASE_URL_OF)) {
    if (!c[variable] || providers.has(provider as ModelProvider)) continue;
    problems.push(
      listed
        ? `${variable}: set, but MODELS lists no ${provider} model; unset it or add one (each provider reads only its own base URL)`
        : `${variable}: set, but MODEL_PROVIDER=${c.MODEL_PROVIDER}; unset it or select ${provider} (each provider reads only its own base URL)`,
    );
  }
  return models;
}

/**
 * Workspaces live outside the application's checkout: /var/lib/toolgate/workspaces for a root server (every
 * ancestor must be passable for the unprivileged uid commands run as), else the user's data directory.
 */
function defaultWorkspaceRoot(env: Record<string, string | undefined>): string {
  if (process.getuid?.() === 0) return "/var/lib/toolgate/workspaces";
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), ".local/share");
  return path.join(dataHome, "toolgate/workspaces");
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The top of the git checkout holding dir, if any. */
function gitCheckoutOf(dir: string): string | null {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (existsSync(/*turbopackIgnore: true*/ path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return null;
  }
}

let cached: AppConfig | undefined;

export function loadConfig(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
