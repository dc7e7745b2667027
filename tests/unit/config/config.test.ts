// A row id at the start of a test name (a letter and a number) names a row of docs/requirements.md.
import { describe, expect, it } from "vitest";
import { createLanguageModel } from "@/lib/runs/model-provider";
import { DEFAULT_MODEL_NAMES, parseConfig } from "@/lib/config";
import { configProblems } from "../../support/config-problems";

describe("configuration", () => {
  it("B1 the default session mode is chat_safe", () => {
    expect(parseConfig({}).SESSION_DEFAULT_MODE).toBe("chat_safe");
  });

  it("T1 SESSION_DEFAULT_MODE=chat_safe set explicitly is accepted and is the configuration's session default", () => {
    expect(configProblems({ SESSION_DEFAULT_MODE: "chat_safe" })).toEqual([]);
    expect(parseConfig({ SESSION_DEFAULT_MODE: "chat_safe" }).SESSION_DEFAULT_MODE).toBe("chat_safe");
    // Only the exact value: the check is not a prefix or case-folding match (an empty variable counts as unset).
    for (const near of ["Chat_Safe", "chat_safe ", "chat_safe,coding"])
      expect(configProblems({ SESSION_DEFAULT_MODE: near }), JSON.stringify(near)).not.toEqual([]);
  });

  it("B8/S5 SESSION_DEFAULT_MODE=coding is rejected, naming the variable", () => {
    const found = configProblems({ SESSION_DEFAULT_MODE: "coding" });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^SESSION_DEFAULT_MODE: .*chat_safe/);
  });

  it.each([
    [{ PORT: "99999" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ MODEL_PROVIDER: "gpt" }, "MODEL_PROVIDER"],
    [{ MODEL_PROVIDER: "openai" }, "OPENAI_API_KEY"],
    [{ MODEL_PROVIDER: "openai-compatible" }, "OPENAI_COMPATIBLE_BASE_URL"],
    [{ MODEL_PROVIDER: "openai-compatible", OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1" }, "MODEL_NAME"],
    [{ NODE_ENV: "production" }, "AUTH_SECRET"],
    [{ DEMO_PASSWORD: "short" }, "DEMO_PASSWORD"],
  ])("an invalid value (%j) names %s", (env, name) => {
    expect(configProblems(env as Record<string, string>).some((p) => p.startsWith(`${name}:`))).toBe(true);
  });

  it("picks the provider from DATABASE_URL", () => {
    expect(parseConfig({}).databaseProvider).toBe("sqlite");
    expect(parseConfig({ DATABASE_URL: "postgresql://u@h/db" }).databaseProvider).toBe("postgres");
  });

  // A hosted provider without MODEL_NAME used to pass start-up and then answer 422 on the first chat.
  it.each([
    ["openai", { OPENAI_API_KEY: "sk-test" }, "gpt-4o-mini"],
    ["anthropic", { ANTHROPIC_API_KEY: "k" }, "claude-sonnet-4-5"],
  ] as const)("%s without MODEL_NAME builds a model with the provider default", (provider, keys, expected) => {
    const c = parseConfig({ MODEL_PROVIDER: provider, ...keys });
    expect(c.MODEL_NAME).toBe(expected);
    expect(DEFAULT_MODEL_NAMES[provider]).toBe(expected);
    const apiKey = provider === "openai" ? c.OPENAI_API_KEY : c.ANTHROPIC_API_KEY;
    // The same call lib/agent/model.ts makes; it throws VALIDATION_FAILED (422) when the name is missing.
    expect(createLanguageModel({ provider: c.MODEL_PROVIDER, model: c.MODEL_NAME, apiKey }).modelId).toBe(expected);
  });

  it("an explicit MODEL_NAME wins over the default; the offline model needs none", () => {
    expect(parseConfig({ MODEL_PROVIDER: "openai", OPENAI_API_KEY: "k", MODEL_NAME: "gpt-x" }).MODEL_NAME).toBe(
      "gpt-x",
    );
    expect(parseConfig({}).MODEL_NAME).toBeUndefined();
  });

  // Issue 12: a hosted key went to OPENAI_COMPATIBLE_BASE_URL when MODEL_PROVIDER=openai/anthropic.
  it.each([
    [
      { MODEL_PROVIDER: "openai", OPENAI_API_KEY: "k", OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1" },
      "OPENAI_COMPATIBLE_BASE_URL",
    ],
    [
      { MODEL_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "k", OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1" },
      "OPENAI_COMPATIBLE_BASE_URL",
    ],
    [
      { MODEL_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" },
      "OPENAI_BASE_URL",
    ],
    [
      {
        MODEL_PROVIDER: "openai-compatible",
        OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:2",
      },
      "ANTHROPIC_BASE_URL",
    ],
    [{ OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1" }, "OPENAI_COMPATIBLE_BASE_URL"],
  ])("start-up refuses another provider's base URL (%j names %s)", (env, name) => {
    expect(
      configProblems(env as Record<string, string>).some(
        (p) => p.startsWith(`${name}:`) && p.includes("MODEL_PROVIDER"),
      ),
    ).toBe(true);
  });

  it("each provider reads only its own base URL", () => {
    expect(
      parseConfig({ MODEL_PROVIDER: "openai", OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://proxy.example/v1" })
        .modelBaseUrl,
    ).toBe("https://proxy.example/v1");
    expect(parseConfig({ MODEL_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "k" }).modelBaseUrl).toBeUndefined();
    expect(
      parseConfig({
        MODEL_PROVIDER: "openai-compatible",
        OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1",
        MODEL_NAME: "llama3.1",
      }).modelBaseUrl,
    ).toBe("http://127.0.0.1:1/v1");
  });

  it("the audit key must not be the session secret", () => {
    const same = "x".repeat(40);
    expect(configProblems({ AUTH_SECRET: same, AUDIT_KEY: same }).some((p) => p.startsWith("AUDIT_KEY:"))).toBe(true);
    expect(configProblems({ AUDIT_KEY: "short" }).some((p) => p.startsWith("AUDIT_KEY:"))).toBe(true);
  });
});

describe("WORKSPACE_ROOT", () => {
  const base = { NODE_ENV: "test" };
  it("is refused inside the application's git checkout (commands there would see the app's repository)", () => {
    expect(() => parseConfig({ ...base, WORKSPACE_ROOT: "data/workspaces" })).toThrow(
      /WORKSPACE_ROOT: .* inside the application's git checkout/,
    );
    expect(() => parseConfig({ ...base, WORKSPACE_ROOT: process.cwd() })).toThrow(/WORKSPACE_ROOT/);
  });
  it("defaults outside the checkout: /var/lib/toolgate/workspaces for root, else the user's data directory", () => {
    const root = parseConfig({ ...base, XDG_DATA_HOME: "/tmp/xdg-test" }).workspaceRoot;
    expect(root).toBe(process.getuid?.() === 0 ? "/var/lib/toolgate/workspaces" : "/tmp/xdg-test/toolgate/workspaces");
    expect(root.startsWith(process.cwd())).toBe(false);
  });
  it("accepts a directory outside the checkout", () => {
    expect(parseConfig({ ...base, WORKSPACE_ROOT: "/tmp/toolgate-ws-ok" }).workspaceRoot).toBe("/tmp/toolgate-ws-ok");
  });
  it("notifications: the webhook needs both its URL and its secret; links need an http(s) base URL", () => {
    expect(configProblems({ APPROVAL_WEBHOOK_URL: "https://hooks.example.com/x" }).join("\n")).toMatch(
      /APPROVAL_WEBHOOK_SECRET: set both/,
    );
    expect(configProblems({ APPROVAL_WEBHOOK_SECRET: "0123456789abcdef0123" }).join("\n")).toMatch(
      /APPROVAL_WEBHOOK_URL, APPROVAL_WEBHOOK_SECRET/,
    );
    expect(
      configProblems({ APPROVAL_WEBHOOK_URL: "https://hooks.example.com/x", APPROVAL_WEBHOOK_SECRET: "short" }).join(
        "\n",
      ),
    ).toMatch(/APPROVAL_WEBHOOK_SECRET: must be at least 16/);
    expect(
      configProblems({
        APPROVAL_WEBHOOK_URL: "file:///etc/passwd",
        APPROVAL_WEBHOOK_SECRET: "0123456789abcdef0123",
      }).join("\n"),
    ).toMatch(/APPROVAL_WEBHOOK_URL: must be an http/);
    expect(configProblems({ PUBLIC_BASE_URL: "javascript:alert(1)" }).join("\n")).toMatch(/PUBLIC_BASE_URL/);
    expect(configProblems({ SMTP_URL: "smtp://127.0.0.1:25" }).join("\n")).toMatch(
      /PUBLIC_BASE_URL: required when SMTP_URL/,
    );
    expect(
      configProblems({ SMTP_URL: "http://mail.example.com", PUBLIC_BASE_URL: "https://t.example.com" }).join("\n"),
    ).toMatch(/SMTP_URL: must be an smtp/);
    expect(configProblems({ SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/x" }).join("\n")).toMatch(
      /SLACK_SIGNING_SECRET: set both/,
    );
    expect(
      configProblems({
        APPROVAL_WEBHOOK_URL: "https://hooks.example.com/x",
        APPROVAL_WEBHOOK_SECRET: "0123456789abcdef0123",
        PUBLIC_BASE_URL: "https://toolgate.example.com",
      }),
    ).toEqual([]);
  });
});
