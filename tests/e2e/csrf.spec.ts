// Issue 12, in a real browser with a real second origin: a page served from another port of the same host
// (same site, so SameSite=Lax cookies go along) tries what worked before: a text/plain fetch that grants
// `admin`, an auto-submitted form that rolls the policy back, and framing the signed-in app.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

function attackPage(app: string, memberId: string): string {
  return `<!doctype html><html><body>
<h1>cute cats</h1>
<form id="f" method="POST" action="${app}/api/policy/rollback" enctype="text/plain" target="sink">
  <input name='{"version":1,"x":"' value='"}'>
</form>
<iframe name="sink"></iframe>
<iframe id="framed" src="${app}/chat" width="600" height="400"></iframe>
<script>
  fetch(${JSON.stringify(`${app}/api/admin/users/${memberId}/roles`)}, {
    method: "POST", credentials: "include", mode: "no-cors",
    headers: { "content-type": "text/plain" },
    body: JSON.stringify({ role: "admin", action: "add" }),
  }).finally(() => {
    document.getElementById("f").submit();
    setTimeout(() => (window.attackDone = true), 1500);
  });
</script></body></html>`;
}

test("a same-site page on another port cannot change state with the owner's cookies, nor frame the app", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@example.com");
  const before = await (await page.request.get("/api/admin/users")).json();
  const member = before.users.find((u: { email: string }) => u.email === "member@example.com");
  const versionsBefore = (await (await page.request.get("/api/policy/versions")).json()).versions.length;

  let evilHits = 0;
  const evil = http.createServer((_req, res) => {
    evilHits += 1;
    res.writeHead(200, { "content-type": "text/html" });
    res.end(attackPage(baseURL!, member.id));
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
  const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  try {
    const refused: number[] = [];
    page.on("response", (res) => {
      if (res.url().includes("/roles") || res.url().includes("/rollback")) refused.push(res.status());
    });
    await page.goto(`${evilUrl}/cats`);
    await page.waitForFunction(() => (window as unknown as { attackDone?: boolean }).attackDone === true, null, {
      timeout: 15_000,
    });
    expect(evilHits).toBeGreaterThan(0);
    // The requests reached the app and were refused there.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((s) => s === 403 || s === 415)).toBe(true);

    const after = await (await page.request.get(`${baseURL}/api/admin/users`)).json();
    expect(after.users.find((u: { id: string }) => u.id === member.id).roles).toEqual(["member"]);
    expect((await (await page.request.get(`${baseURL}/api/policy/versions`)).json()).versions.length).toBe(
      versionsBefore,
    );

    // frame-ancestors 'none' / X-Frame-Options: the framed app never renders the signed-in page.
    const framed = page.frames().find((f) => f.parentFrame() === page.mainFrame() && f.name() !== "sink");
    expect(framed).toBeTruthy();
    await expect(framed!.getByTestId("current-user")).toHaveCount(0);
  } finally {
    evil.close();
  }
});

test("the app's own pages still change state (same-origin JSON), under the CSP", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await signInAs(page, "member@example.com");
  const res = await page.evaluate(async () => {
    const r = await fetch("/api/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    return r.status;
  });
  expect(res).toBe(201);
  expect(violations).toEqual([]);
});
