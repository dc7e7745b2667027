// Issue 33: an MCP server's environment variables and HTTP headers in the MCP servers form. Names are shown and
// editable; values are write-only: the page and the API never carry a stored value (nor its ciphertext), a stored
// one shows as "set", and a typed one replaces it on save. The stored row is decrypted here with node:crypto
// (AES-256-GCM, HKDF from AUTH_SECRET, the server id as associated data) to check what was kept and replaced.
import { createDecipheriv, hkdfSync } from "node:crypto";
import Database from "better-sqlite3";
import type { Page } from "@playwright/test";
import { TEST_AUTH_SECRET } from "../support/app-server";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations, savePolicy, SCREENS, shotPath, signInAs } from "./helpers";

const SECRETS = ["tok-old-4471", "debug-9917", "hdr-5823", "tok-new-8832", "eu-1234", "key-7710"];
const SERVERS = [
  {
    id: "files",
    transport: { type: "stdio", command: "/usr/bin/true", env: { API_TOKEN: "tok-old-4471", LOG_LEVEL: "debug-9917" } },
    allowedModes: ["coding"],
  },
  {
    id: "remote",
    transport: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer hdr-5823" } },
    allowedModes: ["coding"],
  },
];

function decrypt(aad: string, sealed: string): Record<string, string> {
  const raw = Buffer.from(sealed.split(":", 2)[1] ?? "", "base64");
  const key = Buffer.from(hkdfSync("sha256", TEST_AUTH_SECRET, "toolgate", "mcp-server-headers", 32));
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as Record<
    string,
    string
  >;
}

async function openMcpForm(page: Page) {
  await page.goto("/admin/policy");
  await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
  await page.getByRole("tab", { name: "MCP servers" }).click();
  await expect(page.getByTestId("mcp-secrets-files")).toBeVisible();
}

/** Neither the page nor the API response holds a secret value or a ciphertext. */
async function expectNoSecrets(page: Page) {
  const html = await page.content();
  const api = await (await page.request.get("/api/policy")).text();
  for (const secret of SECRETS) {
    expect(html, "page HTML").not.toContain(secret);
    expect(api, "GET /api/policy").not.toContain(secret);
  }
  expect(api).not.toContain("Encrypted");
}

test.describe("MCP server secrets in the form (issue 33)", () => {
  test.beforeEach(async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, { version: 1, mcpServers: SERVERS }, "mcp secrets");
  });
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, { version: 1 }, "e2e cleanup");
  });

  test("names shown and editable, values write-only: replace, remove, rename, add; saved and reloaded", async ({
    page,
    app,
  }) => {
    await openMcpForm(page);
    const env = page.getByTestId("mcp-secrets-files");
    const headers = page.getByTestId("mcp-secrets-remote");
    await expect(env.getByTestId("mcp-secret-files-API_TOKEN").getByLabel(/^Name/)).toHaveValue("API_TOKEN");
    await expect(env.getByLabel("Value of API_TOKEN")).toHaveValue("");
    await expect(env.getByTestId("mcp-secret-files-API_TOKEN")).toContainText("set");
    await expect(headers.getByTestId("mcp-secret-remote-Authorization").getByLabel(/^Name/)).toHaveValue(
      "Authorization",
    );
    await expectNoSecrets(page);

    await env.getByLabel("Value of API_TOKEN").fill("tok-new-8832");
    await env.getByRole("button", { name: "Remove LOG_LEVEL" }).click();
    await env.getByLabel("New variable name").fill("1REGION");
    await expect(env).toContainText("letters, digits and _ only");
    await expect(env.getByRole("button", { name: "Add variable" })).toBeDisabled();
    await env.getByLabel("New variable name").fill("REGION");
    await env.getByLabel("Its value").fill("eu-1234");
    await env.getByRole("button", { name: "Add variable" }).click();

    // A stored header renamed without a value would lose it: the form asks for the value first.
    const row = headers.getByTestId("mcp-secret-remote-Authorization");
    await row.getByLabel(/^Name/).fill("X-Api-Key");
    await row.getByLabel(/^Name/).blur();
    await expect(row).toContainText("type the value again to rename it");
    await row.getByLabel("Value of Authorization").fill("key-7710");
    await row.getByLabel("Value of Authorization").blur();
    await expect(headers.getByTestId("mcp-secret-remote-X-Api-Key")).toBeVisible();

    const saved = page.waitForResponse((r) => r.url().endsWith("/api/policy") && r.request().method() === "PUT");
    await page
      .getByLabel(/comment/i)
      .first()
      .fill("mcp secrets form");
    await page.getByRole("button", { name: "Save as new version" }).click();
    const body = await (await saved).text();
    for (const secret of SECRETS) expect(body, "PUT /api/policy response").not.toContain(secret);
    await expect(page.getByText("No changes")).toBeVisible();

    await page.reload();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    await page.getByRole("tab", { name: "MCP servers" }).click();
    await expect(page.getByTestId("mcp-secret-files-API_TOKEN")).toContainText("set");
    await expect(page.getByTestId("mcp-secret-files-REGION")).toContainText("set");
    await expect(page.getByTestId("mcp-secret-files-LOG_LEVEL")).toHaveCount(0);
    await expect(page.getByTestId("mcp-secret-remote-X-Api-Key")).toContainText("set");
    await expect(page.getByTestId("mcp-secret-remote-Authorization")).toHaveCount(0);
    await expectNoSecrets(page);

    const db = new Database(app.databaseFile, { readonly: true, timeout: 10_000 });
    const row2 = db.prepare(`SELECT document FROM "PolicyVersion" ORDER BY version DESC LIMIT 1`).get() as {
      document: string;
    };
    db.close();
    for (const secret of SECRETS) expect(row2.document, "stored row").not.toContain(secret);
    const servers = (
      JSON.parse(row2.document) as {
        mcpServers: Array<{ id: string; transport: { envEncrypted?: string; headersEncrypted?: string } }>;
      }
    ).mcpServers;
    expect(decrypt("files:env", servers[0]!.transport.envEncrypted!)).toEqual({
      API_TOKEN: "tok-new-8832",
      REGION: "eu-1234",
    });
    expect(decrypt("remote", servers[1]!.transport.headersEncrypted!)).toEqual({ "X-Api-Key": "key-7710" });
  });

  test("a stored value untouched is kept; screens and axe at 1280×800 and 390×844, light and dark", async ({
    page,
    app,
  }) => {
    test.setTimeout(120_000);
    await openMcpForm(page);
    await page.getByTestId("mcp-secrets-files").getByRole("button", { name: "Remove LOG_LEVEL" }).click();
    await page
      .getByLabel(/comment/i)
      .first()
      .fill("drop one");
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByText("No changes")).toBeVisible();
    const db = new Database(app.databaseFile, { readonly: true, timeout: 10_000 });
    const stored = db.prepare(`SELECT document FROM "PolicyVersion" ORDER BY version DESC LIMIT 1`).get() as {
      document: string;
    };
    db.close();
    const servers = (
      JSON.parse(stored.document) as {
        mcpServers: Array<{ transport: { envEncrypted: string; headersEncrypted: string } }>;
      }
    ).mcpServers;
    expect(decrypt("files:env", servers[0]!.transport.envEncrypted)).toEqual({ API_TOKEN: "tok-old-4471" });
    expect(decrypt("remote", servers[1]!.transport.headersEncrypted)).toEqual({ Authorization: "Bearer hdr-5823" });

    // A new value typed but not saved yet reads differently from a stored one.
    await page.getByTestId("mcp-secrets-remote").getByLabel("Value of Authorization").fill("typed-not-saved");
    for (const screen of SCREENS) {
      await page.emulateMedia({ colorScheme: screen.scheme });
      await page.setViewportSize({ width: screen.width, height: screen.height });
      await page.getByTestId("mcp-secrets-files").scrollIntoViewIfNeeded();
      await page.screenshot({ path: shotPath(`mcp-secrets-${screen.name}.png`) });
      await expectNoSeriousViolations(page, `mcp secrets ${screen.name}`);
    }
  });
});
