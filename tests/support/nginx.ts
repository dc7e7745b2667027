// nginx from Debian's packages for the deployment test: the site configuration of docs/deploy/nginx.conf inside
// a main configuration of the test's own (a prefix directory, a free port), so nothing of the system is touched.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app-server";

export type Nginx = { url: string; stop: () => Promise<void> };

export function findNginx(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/sbin"])) {
    const file = path.join(dir, "nginx");
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

export async function startNginxWith(bin: string, site: string): Promise<Nginx> {
  const port = await freePort();
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-nginx-"));
  fs.mkdirSync(path.join(prefix, "logs"));
  const siteHere = site.replace(/listen 80;/, `listen 127.0.0.1:${port};`);
  if (siteHere === site) throw new Error("the site configuration has no `listen 80;` to replace");
  fs.writeFileSync(path.join(prefix, "site.conf"), siteHere);
  const conf = `
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
${process.getuid?.() === 0 ? "user root;" : ""}
events { worker_connections 1024; }
http {
  access_log ${prefix}/logs/access.log;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  include ${prefix}/site.conf;
}
`;
  const confFile = path.join(prefix, "nginx.conf");
  fs.writeFileSync(confFile, conf);
  const child = spawn(bin, ["-p", prefix, "-c", confFile, "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nginx did not answer: ${stderr}`);
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      process.kill(-child.pid!, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
