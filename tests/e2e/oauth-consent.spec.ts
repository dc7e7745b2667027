// Issue 30: the OAuth consent page in Chromium. A registered client's authorization request shows who asks and
// where the browser goes back to; Allow sends the browser to the client's redirect URI with a code and the state,
// Deny with access_denied; the page cannot be framed. Screenshots at desktop and phone width, light and dark.
import { createHash, randomBytes } from "node:crypto";
import { expect, test } from "./fixtures";
import { SCREENS, shotPath, signInAs } from "./helpers";

const REDIRECT = "http://127.0.0.1:9/callback";

async function authorizeUrl(page: import("@playwright/test").Page, name: string) {
  const registered = await page.request.post("/oauth/register", {
    data: { client_name: name, redirect_uris: [REDIRECT] },
  });
  expect(registered.status()).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const state = randomBytes(8).toString("hex");
  const params = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
  });
  return { url: `/oauth/authorize?${params}`, state };
}

for (const screen of SCREENS) {
  test(`oauth consent at ${screen.name}: allow sends the code back to the client`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: screen.scheme });
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await signInAs(page, "member@example.com");
    // The client's loopback listener, stood in for by the browser: whatever the page is sent to, it answers.
    await page.route("http://127.0.0.1:9/**", (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: "<p>back at the client</p>" }),
    );
    const { url, state } = await authorizeUrl(page, `Editor ${screen.name}`);
    const response = await page.goto(url);
    expect(response?.headers()["x-frame-options"]).toBe("DENY");
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await expect(page.getByRole("heading", { name: `Connect Editor ${screen.name} to Toolgate?` })).toBeVisible();
    await expect(page.getByTestId("oauth-redirect")).toHaveText("127.0.0.1:9");
    await page.screenshot({ path: shotPath(`oauth-consent-${screen.name}.png`), fullPage: false });
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    const back = new URL(page.url());
    expect(back.searchParams.get("code")).toMatch(/^tgk_/);
    expect(back.searchParams.get("state")).toBe(state);
  });
}

test("oauth consent: deny answers access_denied; an unregistered redirect URI is shown, not followed", async ({
  page,
}) => {
  await signInAs(page, "member@example.com");
  await page.route("http://127.0.0.1:9/**", (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<p>back</p>" }),
  );
  const { url } = await authorizeUrl(page, "Denied client");
  await page.goto(url);
  await page.getByRole("button", { name: "Deny" }).click();
  await page.waitForURL((u) => u.href.startsWith(REDIRECT));
  expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
  const other = await authorizeUrl(page, "Mismatch client");
  await page.goto(other.url.replace(encodeURIComponent(REDIRECT), encodeURIComponent("https://evil.example/cb")));
  await expect(page.getByTestId("oauth-error")).toContainText("redirect_uri");
  expect(page.url()).not.toContain("evil.example/cb?");
});
