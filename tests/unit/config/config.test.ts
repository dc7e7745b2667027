import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/config";

function problems(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("configuration", () => {
  it("B1 the default session mode is chat_safe", () => {
    expect(parseConfig({}).SESSION_DEFAULT_MODE).toBe("chat_safe");
  });

  it("B8/S5 SESSION_DEFAULT_MODE=coding is rejected, naming the variable", () => {
    const found = problems({ SESSION_DEFAULT_MODE: "coding" });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^SESSION_DEFAULT_MODE: .*chat_safe/);
  });

  it.each([
    [{ PORT: "99999" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ MODEL_PROVIDER: "gpt" }, "MODEL_PROVIDER"],
    [{ MODEL_PROVIDER: "openai" }, "OPENAI_API_KEY"],
    [{ MODEL_PROVIDER: "openai-compatible" }, "OPENAI_COMPATIBLE_BASE_URL"],
    [{ NODE_ENV: "production" }, "AUTH_SECRET"],
    [{ DEMO_PASSWORD: "short" }, "DEMO_PASSWORD"],
  ])("an invalid value (%j) names %s", (env, name) => {
    expect(problems(env as Record<string, string>).some((p) => p.startsWith(`${name}:`))).toBe(true);
  });

  it("picks the provider from DATABASE_URL", () => {
    expect(parseConfig({}).databaseProvider).toBe("sqlite");
    expect(parseConfig({ DATABASE_URL: "postgresql://u@h/db" }).databaseProvider).toBe("postgres");
  });
});
