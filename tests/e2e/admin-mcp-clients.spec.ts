// Issue 30: the admin's MCP view lists the gateway's outside clients. A member's token lists tools and makes a call
// through /mcp; the admin sees the token under "Connected clients" with its owner, last seen and that call.
// Screenshots at desktop and phone width, light and dark, and an axe check of the view with a client in it.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { SCREENS, shotPath, signInAs } from "./helpers";

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signInAs(page, "member@example.com");
  const origin = new URL(page.url()).origin;
  const made = await page.request.post("/api/tokens", { data: { name: "laptop agent" }, headers: { origin } });
  expect(made.status()).toBe(201);
  const token = (await made.json()).token as string;
  const rpc = (body: unknown) =>
    page.request.post("/mcp", {
      data: body,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
    });
  expect((await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })).status()).toBe(200);
  expect(
    (
      await rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "current_time", arguments: {} } })
    ).status(),
  ).toBe(200);
  await page.close();
});

for (const screen of SCREENS) {
  test(`connected clients at ${screen.name}: the token, its owner, last seen and its latest call`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: screen.scheme });
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/mcp");
    const section = page.getByRole("region", { name: "Connected clients" });
    const client = section.getByTestId("mcp-client").filter({ hasText: "laptop agent" }).first();
    await expect(client).toContainText("member@example.com");
    await expect(client).toContainText("last seen");
    await expect(client.getByRole("cell", { name: "current_time" })).toBeVisible();
    await expect(client.getByRole("cell", { name: "done" })).toBeVisible();
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath(`admin-mcp-clients-${screen.name}.png`), fullPage: true });
    const results = await new AxeBuilder({ page })
      .setLegacyMode(true)
      .options({ resultTypes: ["violations"] })
      .analyze();
    const serious = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious).toEqual([]);
  });
}
