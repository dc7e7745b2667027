// Issue 15, audit: filters live in the URL (kept on reload and shareable), the user filter takes any part of an
// e-mail, session links open the read-only (audited) view instead of a 404, and the export downloads what the
// filters match. At desktop and phone width, light and dark.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

for (const scheme of ["light", "dark"] as const) {
  for (const size of SIZES) {
    test(`audit at ${size.name} width in ${scheme} mode: URL filters, partial e-mail, read-only session link, export`, async ({
      browser,
    }) => {
      const memberCtx = await browser.newContext();
      const member = await memberCtx.newPage();
      await signInAs(member, "member@example.com");
      const created = await member.request.post("/api/sessions", {
        data: { title: `audit e2e ${scheme} ${size.name}` },
      });
      expect(created.status()).toBe(201);
      const sessionId = (await created.json()).id as string;
      await memberCtx.close();

      const ctx = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        colorScheme: scheme,
      });
      const page = await ctx.newPage();
      await signInAs(page, "admin@example.com");
      await page.goto("/admin/audit");
      const filters = page.getByRole("form", { name: "Audit filters" });
      await filters.getByLabel(/User/).fill("MEMB");
      await filters.getByLabel("Session id").fill(sessionId);
      await filters.getByRole("button", { name: "Apply filters" }).click();
      await expect(page).toHaveURL(new RegExp(`user=MEMB.*session=${sessionId}`));
      const table = page.getByRole("table", { name: "Audit log" });
      await expect(table.getByRole("row")).toHaveCount(2); // the header and the session.created row
      await expect(table).toContainText("member@example.com");
      await expect(table).toContainText("session.created");
      // The details read as fields; the raw JSON is one more click away.
      const details = table.getByTestId("audit-details");
      await expect(details.locator("summary").first()).toContainText("mode: chat_safe");
      await details.locator("summary").first().click();
      await expect(details.locator("dl")).toContainText("agentId: null");
      await details.getByText("Raw JSON").click();
      await expect(details.locator("pre")).toContainText('"mode": "chat_safe"');

      await page.reload();
      await expect(filters.getByLabel(/User/)).toHaveValue("MEMB");
      await expect(table.getByRole("row")).toHaveCount(2);
      const csv = page.getByRole("link", { name: "CSV" });
      await expect(csv).toHaveAttribute("href", new RegExp(`^/api/audit/export\\?.*user=MEMB.*format=csv`));
      const download = await page.request.get((await csv.getAttribute("href"))!);
      expect(download.status()).toBe(200);
      expect(await download.text()).toContain(sessionId);
      await page.screenshot({
        path: `playwright-report/screens/audit-filtered-${size.name}-${scheme}.png`,
        fullPage: false,
      });

      await table.getByRole("link", { name: sessionId }).click();
      await expect(page).toHaveURL(new RegExp(`/approvals/sessions/${sessionId}$`));
      await expect(page.getByRole("heading", { level: 1 })).toContainText("read-only");
      await page.goBack();
      await expect(filters.getByLabel("Session id")).toHaveValue(sessionId);
      await ctx.close();
    });
  }
}
