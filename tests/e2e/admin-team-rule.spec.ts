// The "done when" in the browser: deny exec for a team with the structured controls, see the cell flip and
// name the team rule, save, find the version in the history, roll back, and see the old decision again.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

test("deny exec for a team, save, then roll back from the history", async ({ page }) => {
  await signInAs(page, "admin@example.com");
  const teamId = `e2e-${Date.now().toString(36)}`;
  const users = await (await page.request.get("/api/admin/users")).json();
  const admin = users.users.find((u: { email: string }) => u.email === "admin@example.com");
  expect((await page.request.post("/api/admin/teams", { data: { id: teamId, name: "E2E" } })).status()).toBe(201);
  expect(
    (
      await page.request.post(`/api/admin/teams/${teamId}/members`, { data: { userId: admin.id, action: "add" } })
    ).status(),
  ).toBe(200);

  // A known version before the change, to roll back to.
  const current = await (await page.request.get("/api/policy")).json();
  expect(
    (
      await page.request.put("/api/policy", {
        data: { baseVersion: current.version, document: {}, comment: "baseline" },
      })
    ).status(),
  ).toBe(200);

  await page.goto("/admin/policy");
  await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
  await page.getByRole("combobox", { name: "Team", exact: true }).selectOption(teamId);
  const exec = page.getByRole("button", { name: /^exec in coding:/ });
  // Not denied: under the default exec settings, commands no rule covers wait for an owner.
  await expect(exec).toHaveAttribute("data-status", "ask");

  const deny = page.getByLabel(`Deny for team ${teamId}`);
  await deny.fill("exec");
  await deny.press("Enter");
  await expect(exec).toHaveAttribute("data-status", "denied");
  await expect(exec).toHaveAttribute("data-flipped", "true");
  await exec.click();
  await expect(page.getByTestId("cell-layer")).toContainText("group");
  await expect(page.getByRole("complementary", { name: "Decision details" })).toContainText(`teams.${teamId}`);

  await page.getByLabel("Comment").fill("deny exec for the team");
  await page.getByRole("button", { name: "Save as new version" }).click();
  await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
  await expect(exec).toHaveAttribute("data-status", "denied");
  await expect(exec).not.toHaveAttribute("data-flipped", "true");

  await page.getByRole("tab", { name: "History" }).click();
  const rows = page.getByRole("table", { name: "Policy versions" }).getByRole("row");
  await expect(rows.filter({ hasText: "deny exec for the team" })).toContainText("teams");
  // The row below the newest one is the baseline saved above.
  await expect(rows.nth(2)).toContainText("baseline");
  await rows
    .nth(2)
    .getByRole("button", { name: /Roll back to/ })
    .click();
  // The rollback shows what it would change before it is confirmed.
  await expect(page.getByTestId("version-diff-paths")).toContainText(`teams.${teamId}`);
  await page.getByRole("button", { name: /^Restore version \d+$/ }).click();
  await expect(exec).toHaveAttribute("data-status", "ask");
  // The newest row (other tests may have rolled back before, further down the list).
  await expect(rows.nth(1)).toContainText(/rollback to version \d+/);

  await page.request.delete(`/api/admin/teams/${teamId}`);
});
