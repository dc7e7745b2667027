// Issue 29, finding 3: throttling without denial of service. 50 wrong passwords from five addresses made the right
// password answer 429 from a sixth, and wrong current passwords on /api/me/password spent the same budget. Now a
// guesser is slowed (per address and account, per address over all accounts, and a growing wait per address once
// the account is under attack), the right password from a new address always gets in at once, nobody waits more
// than a minute for an account they have not guessed at ten times themselves, an admin on a trusted network is never
// throttled, and password changes have their own budget. Real HTTP, the app behind one "proxy" hop (the test names
// each request's client in X-Forwarded-For, TRUST_PROXY_HOPS=1), real database.
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD, ROOT, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

const PER_ADDRESS = 40;

async function credentialsPost(app: RunningApp, email: string, password: string, address: string) {
  const client = new HttpClient(app.url);
  const csrf = await client.json<{ csrfToken: string }>("/api/auth/csrf");
  const res = await client.fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams({ email, password, csrfToken: csrf.body.csrfToken, callbackUrl: `${app.url}/chat` }),
  });
  const session = await client.json<{ user?: { id: string } } | null>("/api/auth/session");
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    signedIn: Boolean(session.body?.user?.id),
    client,
  };
}

describe.each(databaseTargets())("sign-in throttling (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;

  async function newUser(roles: string[]): Promise<string> {
    const email = `throttle-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await db.user.create({
      data: {
        email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        roles: { create: roles.map((role) => ({ role })) },
      },
    });
    return email;
  }

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    app = await startApp({
      databaseUrl: target.url,
      env: {
        TRUST_PROXY_HOPS: "1",
        SIGNIN_TRUSTED_NETWORKS: "198.18.0.0/15, fd00:7::/64",
        SIGNIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      },
    });
    db = createDb(target.url);
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    await target?.drop?.();
  });

  it("50 wrong passwords from five addresses: the right password from a sixth signs in at once", async () => {
    const email = await newUser(["admin"]);
    for (let a = 1; a <= 5; a++)
      for (let i = 0; i < 10; i++)
        expect((await credentialsPost(app, email, "wrong-password", `203.0.113.${a}`)).signedIn).toBe(false);
    const sixth = await credentialsPost(app, email, DEMO_PASSWORD, "203.0.113.6");
    expect(sixth.status).not.toBe(429);
    expect(sixth.signedIn).toBe(true);
  });

  it("an account under attack is slowed, never locked: each address waits 2 s doubling to at most 60 s, a new address not at all", async () => {
    const email = await newUser(["member"]);
    // 30 guessing addresses, one wrong password each: past the 10 free failures each address is paced (2, 4, … 60 s).
    for (let a = 1; a <= 30; a++)
      expect((await credentialsPost(app, email, "wrong-password", `198.51.100.${a}`)).signedIn).toBe(false);
    const waits: number[] = [];
    for (const a of [28, 29, 30]) {
      const again = await credentialsPost(app, email, DEMO_PASSWORD, `198.51.100.${a}`);
      expect(again.status, `address ${a}`).toBe(429);
      expect(again.signedIn).toBe(false);
      waits.push(Number(again.retryAfter));
    }
    const paces = await db.rateLimiterFlexible.findMany({ where: { key: { startsWith: "signin-pace" } } });
    expect(paces.length).toBeGreaterThanOrEqual(15);
    expect(Math.max(...waits)).toBeLessThanOrEqual(60);
    expect(Math.min(...waits)).toBeGreaterThan(0);
    // The right password from an address that has not guessed gets in at once, however many failures came before.
    const fresh = await credentialsPost(app, email, DEMO_PASSWORD, "198.51.100.250");
    expect(fresh.status).not.toBe(429);
    expect(fresh.signedIn).toBe(true);
  });

  it(`one address gets at most ${PER_ADDRESS} wrong passwords a day over all accounts (SIGNIN_MAX_FAILURES_PER_ADDRESS)`, async () => {
    const address = "192.0.2.77";
    let refused = 0;
    let tried = 0;
    for (let i = 0; i < PER_ADDRESS + 5; i++) {
      const res = await credentialsPost(app, `spray-${i}-${Date.now()}@example.com`, "wrong-password", address);
      if (res.status === 429) {
        refused++;
        expect(Number(res.retryAfter)).toBeGreaterThan(3600);
      } else tried++;
    }
    expect(tried).toBe(PER_ADDRESS);
    expect(refused).toBe(5);
    // Other addresses are not affected.
    const email = await newUser(["member"]);
    expect((await credentialsPost(app, email, DEMO_PASSWORD, "192.0.2.78")).signedIn).toBe(true);
  });

  it("an admin on a trusted network is never throttled; a member there is, and an admin outside it is", async () => {
    const adminEmail = await newUser(["admin"]);
    for (let i = 0; i < 25; i++)
      expect((await credentialsPost(app, adminEmail, "wrong-password", "198.18.3.4")).status).not.toBe(429);
    expect((await credentialsPost(app, adminEmail, DEMO_PASSWORD, "198.18.3.4")).signedIn).toBe(true);
    // Outside the trusted network the same admin account is throttled like any other.
    for (let i = 0; i < 10; i++) await credentialsPost(app, adminEmail, "wrong-password", "203.0.113.99");
    expect((await credentialsPost(app, adminEmail, DEMO_PASSWORD, "203.0.113.99")).status).toBe(429);
    expect((await credentialsPost(app, adminEmail, DEMO_PASSWORD, "fd00:7::5")).signedIn).toBe(true);
    const memberEmail = await newUser(["member"]);
    for (let i = 0; i < 10; i++) await credentialsPost(app, memberEmail, "wrong-password", "198.18.3.5");
    expect((await credentialsPost(app, memberEmail, DEMO_PASSWORD, "198.18.3.5")).status).toBe(429);
  });

  it("an admin's one-time recovery code signs in whatever the throttle says; each code works once; only admins get codes", async () => {
    const adminEmail = await newUser(["admin"]);
    const env = { ...process.env, DATABASE_URL: target.url };
    const out = execFileSync("npm", ["run", "-s", "recovery-codes", "--", adminEmail], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    });
    const codes = out.split("\n").filter((line) => /^tgrc-/.test(line));
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    // Only hashes are stored.
    const rows = await db.recoveryCode.findMany({});
    expect(rows.map((r) => r.codeHash).join(" ")).not.toContain(codes[0]!.slice(5));
    // The account is locked from this address...
    for (let i = 0; i < 10; i++) await credentialsPost(app, adminEmail, "wrong-password", "203.0.113.200");
    expect((await credentialsPost(app, adminEmail, DEMO_PASSWORD, "203.0.113.200")).status).toBe(429);
    // ...and a recovery code still signs the admin in, from there, once.
    expect((await credentialsPost(app, adminEmail, codes[0]!, "203.0.113.200")).signedIn).toBe(true);
    expect((await credentialsPost(app, adminEmail, codes[0]!, "203.0.113.201")).signedIn).toBe(false);
    expect((await credentialsPost(app, adminEmail, codes[1]!.toUpperCase(), "203.0.113.201")).signedIn).toBe(true);
    // A sign-in with a code forces a new password next: everything else is refused until then.
    const recovered = await credentialsPost(app, adminEmail, codes[3]!, "203.0.113.203");
    expect(recovered.signedIn).toBe(true);
    const me = await recovered.client.json("/api/me");
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe("PASSWORD_CHANGE_REQUIRED");
    expect(new URL((await recovered.client.fetch("/chat")).headers.get("location")!, app.url).pathname).toBe(
      "/change-password",
    );
    // A code as the new password is refused (sign-in would take it for a code and never match the password), and
    // the code given as the current one stays unused.
    const codeAsNew = { currentPassword: codes[4]!, newPassword: codes[5]! };
    const refusedNew = await recovered.client.json("/api/me/password", { method: "POST", body: codeAsNew });
    expect(refusedNew.status, JSON.stringify(refusedNew.body)).toBe(422);
    expect(refusedNew.body.error.code).toBe("VALIDATION_FAILED");
    // The old password is not needed (it may be lost): another unused code proves it is them, once.
    const changed = await recovered.client.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: codes[4]!, newPassword: "recovered-password-1" },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // Both codes' uses are in the audit log: the one that signed in, and the one that stood in for the password.
    const admin = await db.user.findUniqueOrThrow({ where: { email: adminEmail } });
    const where = { action: "user.recovery_code_used", actorId: admin.id };
    const uses = await db.auditLog.findMany({ where, orderBy: { seq: "asc" } });
    const purposes = uses.map((u) => (u.details as { purpose?: string }).purpose);
    expect(purposes).toEqual(["sign_in", "sign_in", "sign_in", "password_change"]);
    expect((await credentialsPost(app, adminEmail, codes[4]!, "203.0.113.204")).signedIn).toBe(false);
    const after = await credentialsPost(app, adminEmail, "recovered-password-1", "203.0.113.205");
    expect(after.signedIn).toBe(true);
    expect((await after.client.json("/api/me")).status).toBe(200);
    // A new set voids the old one; a member gets none.
    execFileSync("npm", ["run", "-s", "recovery-codes", "--", adminEmail], { cwd: ROOT, env, encoding: "utf8" });
    expect((await credentialsPost(app, adminEmail, codes[2]!, "203.0.113.202")).signedIn).toBe(false);
    const memberEmail = await newUser(["member"]);
    expect(
      spawnSync("npm", ["run", "-s", "recovery-codes", "--", memberEmail], { cwd: ROOT, env, encoding: "utf8" }).status,
    ).toBe(1);
  });

  it("a wrong current password on /api/me/password spends its own budget, not the sign-in one", async () => {
    const email = await newUser(["member"]);
    const client = await signedIn(app.url, email);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (
          await client.json("/api/me/password", {
            method: "POST",
            body: { currentPassword: "wrong", newPassword: "a-new-password-123" },
          })
        ).status,
      );
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    // Sign-in for the account is untouched, from any address.
    expect((await credentialsPost(app, email, DEMO_PASSWORD, "203.0.113.120")).signedIn).toBe(true);
    // And failed sign-ins do not spend the password-change budget of another account.
    const other = await newUser(["member"]);
    const otherClient = await signedIn(app.url, other);
    for (let i = 0; i < 10; i++) await credentialsPost(app, other, "wrong-password", "127.0.0.1");
    expect(
      (
        await otherClient.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: DEMO_PASSWORD, newPassword: "a-new-password-123" },
        })
      ).status,
    ).toBe(200);
  });
});
