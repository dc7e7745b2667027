// Issue 11, the inbox that cannot trick an owner, in a real browser: the owner reads one request while two
// more arrive. The open request never changes by itself (the new ones are marked in the list), a key acts
// only on the open request and does not advance to the next one, and "allow always" asks first, showing the
// rule it would store and where it applies.
import { type APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

async function ask(request: APIRequestContext, sessionId: string, command: string) {
  const res = await request.post("/api/approvals", {
    data: {
      sessionId,
      toolName: "exec",
      callId: `inbox-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      args: { command },
    },
  });
  expect(res.status()).toBe(202);
  return (await res.json()).id as string;
}

async function statusOf(request: APIRequestContext, id: string) {
  return (await (await request.get(`/api/approvals/${id}`)).json()).approval.status as string;
}

test("two requests arrive while the owner reads one: nothing switches, keys act on the open one only, allow-always asks first", async ({
  browser,
}) => {
  const memberCtx = await browser.newContext();
  const member = await memberCtx.newPage();
  await signInAs(member, "member@example.com");
  const session = await (await member.request.post("/api/sessions", { data: {} })).json();
  const tag = Date.now().toString(36);
  const harmless = await ask(member.request, session.id, `echo harmless-${tag} >> notes-${tag}.txt`);

  const ownerCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const owner = await ownerCtx.newPage();
  await signInAs(owner, "owner@example.com");
  await owner.goto("/approvals");
  const detail = owner.getByTestId("approval-detail");
  // Nothing is open until the owner opens it.
  await expect(detail).toHaveCount(0);
  await owner
    .getByTestId("pending-list")
    .getByTestId("approval-row")
    .filter({ hasText: `harmless-${tag}` })
    .click();
  await expect(detail).toHaveAttribute("data-approval-id", harmless);
  await expect(detail.getByTestId("approval-command")).toContainText(`harmless-${tag}`);

  // While it is read, two riskier requests arrive (live, through the event stream).
  const risky = await ask(member.request, session.id, `rm -rf ./important-${tag}`);
  const other = await ask(member.request, session.id, `rm -rf ./other-${tag}`);
  const newRows = owner.getByTestId("pending-list").locator('[data-testid="approval-row"][data-new="true"]');
  await expect(newRows.filter({ hasText: `important-${tag}` })).toHaveCount(1);
  await expect(newRows.filter({ hasText: `other-${tag}` })).toHaveCount(1);
  await expect(newRows.filter({ hasText: `harmless-${tag}` })).toHaveCount(0);
  await expect(owner.getByTestId("new-requests")).toHaveText(/2 new requests/);
  // The open request is still the one being read.
  await expect(detail).toHaveAttribute("data-approval-id", harmless);
  await expect(detail.getByTestId("approval-command")).toContainText(`harmless-${tag}`);

  // "o" approves exactly the open request; the pane stays on it (showing the outcome) instead of advancing.
  await owner.keyboard.press("o");
  await expect(detail.getByTestId("approval-status")).toContainText("approved");
  await expect(detail).toHaveAttribute("data-approval-id", harmless);
  expect(await statusOf(owner.request, harmless)).toBe("approved");
  // A second "o" has nothing to act on: the newer requests are untouched.
  await owner.keyboard.press("o");
  await owner.waitForTimeout(500);
  expect(await statusOf(owner.request, risky)).toBe("pending");
  expect(await statusOf(owner.request, other)).toBe("pending");

  // Allow always asks first, with the rule it would store and its scope; Escape answers no.
  await owner
    .getByTestId("pending-list")
    .getByTestId("approval-row")
    .filter({ hasText: `important-${tag}` })
    .click();
  await expect(detail).toHaveAttribute("data-approval-id", risky);
  await expect(
    owner
      .getByTestId("pending-list")
      .locator('[data-new="true"]')
      .filter({ hasText: `important-${tag}` }),
  ).toHaveCount(0);
  await owner.keyboard.press("a");
  const confirm = owner.getByTestId("allow-always-confirm");
  await expect(confirm).toBeVisible();
  await expect(confirm.getByTestId("allow-always-rules")).toContainText("rm");
  await expect(confirm).toContainText(/Applies to/);
  // While the question is open, shortcuts do nothing.
  await owner.keyboard.press("o");
  await owner.waitForTimeout(300);
  expect(await statusOf(owner.request, risky)).toBe("pending");
  await owner.keyboard.press("Escape");
  await expect(confirm).toHaveCount(0);
  expect(await statusOf(owner.request, risky)).toBe("pending");

  // Deny with the key: again only the open request.
  await owner.keyboard.press("d");
  await expect(detail.getByTestId("approval-status")).toContainText("denied");
  expect(await statusOf(owner.request, risky)).toBe("denied");
  expect(await statusOf(owner.request, other)).toBe("pending");
  await owner.screenshot({ path: "test-results/inbox-no-tricks.png", fullPage: true });
  // The pane's own read of the request, answered by the server before the decision but arriving after it (a busy
  // server): the pane must not go back to "pending" with its buttons live. Held here until the decision is answered.
  let decided!: () => void;
  const decision = new Promise<void>((resolve) => (decided = resolve));
  owner.on("response", (response) => response.url().endsWith(`/api/approvals/${other}/decision`) && decided());
  await owner.route(`**/api/approvals/${other}`, async (route) => {
    const response = await route.fetch();
    await decision;
    await route.fulfill({ response });
  });
  await owner
    .getByTestId("pending-list")
    .getByTestId("approval-row")
    .filter({ hasText: `other-${tag}` })
    .click();
  // As an owner would: the key once the request is open.
  await expect(detail).toHaveAttribute("data-approval-id", other);
  await expect(detail.getByTestId("approval-status")).toContainText("pending");
  await owner.keyboard.press("d");
  await expect(detail.getByTestId("approval-status")).toContainText("denied");
  await expect(detail.getByRole("button", { name: /Deny/ })).toHaveCount(0);
  // Later reads of the request (the pane refreshes it) may still be in the hold when the test ends: the page closes
  // under them ("Request context disposed", a full run failed on it), which says nothing about the inbox.
  await owner.unrouteAll({ behavior: "ignoreErrors" });
  await Promise.all([memberCtx.close(), ownerCtx.close()]);
});
