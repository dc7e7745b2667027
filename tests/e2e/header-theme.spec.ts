// Issue 33, phone and polish: the header is one row at 390 px with a Menu button that opens the navigation, and a
// light/dark/system theme chosen in the header is kept across a reload, rendered by the server (no flash: the
// first paint already has it, before any script runs).
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations, shotPath, signInAs } from "./helpers";

test("phone header: one row; Menu opens the navigation and a link closes it", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAs(page, "admin@example.com");
  const header = page.locator("header").first();
  expect((await header.boundingBox())!.height).toBeLessThan(60);
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await page.screenshot({ path: shotPath("header-phone-menu-open.png") });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Grants" }).click();
  await expect(page).toHaveURL(/\/grants$/);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expectNoSeriousViolations(page, "grants page after the phone menu");
});

test("desktop header: the navigation is shown without a Menu button", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInAs(page, "admin@example.com");
  await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toBeVisible();
});

test("theme: dark chosen on a light system survives a reload, light on a dark system too; system follows the system", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
  await signInAs(page, "admin@example.com");
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const lightBg = await background();
  const theme = page.getByRole("combobox", { name: "Colour theme" });
  await expect(theme).toHaveValue("system");

  await theme.selectOption("dark");
  await expect.poll(background).not.toBe(lightBg);
  const darkBg = await background();
  await page.screenshot({ path: shotPath("theme-dark-on-light-system.png") });
  // The server renders the class: the HTML itself has it, before any script.
  const html = await (await page.request.get("/chat")).text();
  expect(html).toMatch(/<html[^>]*class="dark"/);
  await page.reload();
  await expect(theme).toHaveValue("dark");
  expect(await background()).toBe(darkBg);

  await page.emulateMedia({ colorScheme: "dark" });
  await theme.selectOption("light");
  await expect.poll(background).toBe(lightBg);
  await page.reload();
  expect(await background()).toBe(lightBg);

  await theme.selectOption("system");
  await expect.poll(background).toBe(darkBg);
  await page.emulateMedia({ colorScheme: "light" });
  await expect.poll(background).toBe(lightBg);
  await page.reload();
  await expect(theme).toHaveValue("system");
});
