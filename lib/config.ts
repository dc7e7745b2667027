// Configuration, read once from the environment and validated. An invalid value stops start-up with a
// message naming the variable (instrumentation.ts and scripts/start.mjs both call loadConfig()).
import path from "node:path";
import { z } from "zod";

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
    .refine((v) => v === "chat_safe", "must be chat_safe: new sessions start safe; coding is granted per user by an admin"),
  DEMO_PASSWORD: z.string().min(8, "must be at least 8 characters").default("toolgate-demo"),
  SEED_DEMO_USERS: z.enum(["auto", "true", "false"]).default("auto"),
  WORKSPACE_ROOT: z.string().default("data/workspaces"),
  MODEL_PROVIDER: z.enum(["offline", "openai", "anthropic", "openai-compatible"]).default("offline"),
  MODEL_NAME: optionalString,
  OPENAI_API_KEY: optionalString,
  ANTHROPIC_API_KEY: optionalString,
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
});

export type AppConfig = z.infer<typeof ConfigSchema> & {
  databaseProvider: "sqlite" | "postgres";
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
  if (c.MODEL_PROVIDER === "openai" && !c.OPENAI_API_KEY) problems.push("OPENAI_API_KEY: required when MODEL_PROVIDER=openai");
  if (c.MODEL_PROVIDER === "anthropic" && !c.ANTHROPIC_API_KEY) problems.push("ANTHROPIC_API_KEY: required when MODEL_PROVIDER=anthropic");
  if (c.MODEL_PROVIDER === "openai-compatible" && !c.OPENAI_COMPATIBLE_BASE_URL)
    problems.push("OPENAI_COMPATIBLE_BASE_URL: required when MODEL_PROVIDER=openai-compatible");
  // `next build` loads route modules without serving anything; the secret is only needed to serve.
  const building = env.NEXT_PHASE === "phase-production-build";
  if (c.NODE_ENV === "production" && !c.AUTH_SECRET && !building) problems.push("AUTH_SECRET: required in production (npm start sets one)");
  if (problems.length) throw new ConfigError(problems);
  return {
    ...c,
    databaseProvider: /^postgres(ql)?:\/\//.test(c.DATABASE_URL) ? "postgres" : "sqlite",
    workspaceRoot: path.resolve(c.WORKSPACE_ROOT),
  };
}

let cached: AppConfig | undefined;

export function loadConfig(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
