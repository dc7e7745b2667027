// Issue 29, finding 3, behind a real nginx: the trusted network for admin sign-in is decided on the client address
// after TRUST_PROXY_HOPS, not on anything the client claims. The clients connect to nginx from distinct loopback
// addresses (127.0.0.2 is "the admin network", 127.0.0.3 is outside it); nginx appends the address it saw to
// X-Forwarded-For; the app, told of one proxy hop, takes that one.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD, freePort, startApp, type RunningApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

const NGINX = "/usr/sbin/nginx";
const hasNginx = fs.existsSync(NGINX);

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** A cookie-keeping client whose connections leave from `localAddress`. */
function clientFrom(baseUrl: string, localAddress: string, extraHeaders: Record<string, string> = {}) {
  const cookies = new Map<string, string>();
  const request = (method: string, pathname: string, body?: string, type?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const headers: Record<string, string> = { ...extraHeaders };
      if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      if (type) headers["content-type"] = type;
      const req = http.request(`${baseUrl}${pathname}`, { method, headers, localAddress, agent: false }, (res) => {
        for (const line of res.headers["set-cookie"] ?? []) {
          const [pair = ""] = line.split(";");
          const eq = pair.indexOf("=");
          const value = pair.slice(eq + 1).trim();
          if (value === "" || /max-age=0/i.test(line)) cookies.delete(pair.slice(0, eq).trim());
          else cookies.set(pair.slice(0, eq).trim(), value);
        }
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  return {
    async signIn(email: string, password: string) {
      const csrf = JSON.parse((await request("GET", "/api/auth/csrf")).body) as { csrfToken: string };
      const form = new URLSearchParams({
        email,
        password,
        csrfToken: csrf.csrfToken,
        callbackUrl: `${baseUrl}/chat`,
      }).toString();
      const posted = await request("POST", "/api/auth/callback/credentials", form, "application/x-www-form-urlencoded");
      const session = JSON.parse((await request("GET", "/api/auth/session")).body || "null") as {
        user?: { id: string };
      } | null;
      return { status: posted.status, signedIn: Boolean(session?.user?.id) };
    },
  };
}

describe.skipIf(!hasNginx)("sign-in behind nginx: the trusted network is the address nginx saw", () => {
  let app: RunningApp;
  let db: Db;
  let nginx: ChildProcess;
  let proxyUrl: string;
  let dir: string;

  beforeAll(async () => {
    const url = newSqliteUrl();
    prepareDatabase(url);
    app = await startApp({ databaseUrl: url, env: { TRUST_PROXY_HOPS: "1", SIGNIN_TRUSTED_NETWORKS: "127.0.0.2/32" } });
    db = createDb(url);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-nginx-"));
    const port = await freePort();
    proxyUrl = `http://127.0.0.1:${port}`;
    fs.writeFileSync(
      path.join(dir, "nginx.conf"),
      `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${app.port};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`,
    );
    nginx = spawn(NGINX, ["-e", `${dir}/error.log`, "-p", dir, "-c", `${dir}/nginx.conf`], { stdio: "ignore" });
    for (let i = 0; i < 100; i++) {
      const up = await fetch(`${proxyUrl}/api/auth/csrf`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);

  afterAll(async () => {
    nginx?.kill("SIGTERM");
    await app?.stop();
    await db?.$disconnect();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("an admin on the trusted network is never throttled; outside it, and with a forged X-Forwarded-For, they are", async () => {
    const email = `nginx-admin-${Date.now()}@example.com`;
    await db.user.create({
      data: { email, passwordHash: await hashPassword(DEMO_PASSWORD), roles: { create: [{ role: "admin" }] } },
    });
    const inside = clientFrom(proxyUrl, "127.0.0.2");
    const outside = clientFrom(proxyUrl, "127.0.0.3");
    const forging = clientFrom(proxyUrl, "127.0.0.4", { "x-forwarded-for": "127.0.0.2" });

    for (let i = 0; i < 10; i++) expect((await outside.signIn(email, "wrong-password")).signedIn).toBe(false);
    expect((await outside.signIn(email, DEMO_PASSWORD)).status).toBe(429);
    for (let i = 0; i < 10; i++) expect((await forging.signIn(email, "wrong-password")).signedIn).toBe(false);
    // Claiming the trusted address in the header changes nothing: nginx appends the address it saw.
    expect((await forging.signIn(email, DEMO_PASSWORD)).status).toBe(429);
    for (let i = 0; i < 12; i++) expect((await inside.signIn(email, "wrong-password")).status).not.toBe(429);
    expect(await inside.signIn(email, DEMO_PASSWORD)).toMatchObject({ signedIn: true });
    // The counters name the addresses nginx saw.
    const keys = (await db.rateLimiterFlexible.findMany({ where: { key: { contains: email } }, select: { key: true } }))
      .map((k) => k.key)
      .join(" ");
    expect(keys).toContain("127.0.0.3");
    expect(keys).toContain("127.0.0.4");
    expect(keys).not.toContain("127.0.0.2");
  });
});
