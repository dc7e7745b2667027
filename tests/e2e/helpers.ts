import { expect, type Page } from "@playwright/test";

export const DEMO_PASSWORD = "toolgate-demo";

export async function signInAs(page: Page, email: string) {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/chat/);
}
