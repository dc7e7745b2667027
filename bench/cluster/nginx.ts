// nginx from Debian's packages in front of the app instances: round robin, no sticky sessions, streams unbuffered.
// Installed with apt-get when missing (the benchmark runs as root on the build machine); started on a free port
// with its own prefix directory, so it touches no system configuration and stops with the benchmark.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../tests/support/app-server";

function which(bin: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/sbin"])) {
    const file = path.join(dir, bin);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

export function ensureNginx(): string {
  const found = which("nginx");
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new Error("nginx is not installed and installing it needs root: apt-get install nginx-light");
  console.error("installing nginx (apt-get install nginx-light)…");
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "nginx-light"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const installed = which("nginx");
  if (!installed) throw new Error("apt-get installed nginx-light but no nginx binary was found");
  return installed;
}

export type Balancer = { url: string; pid: number; stop: () => Promise<void> };

export async function startNginx(upstreams: string[]): Promise<Balancer> {
  const bin = ensureNginx();
  const port = await freePort();
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-nginx-"));
  fs.mkdirSync(path.join(prefix, "logs"));
  const conf = `
worker_processes 2;
worker_rlimit_nofile 65536;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
${process.getuid?.() === 0 ? "user root;" : ""}
events { worker_connections 30000; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream toolgate {
${upstreams.map((u) => `    server ${u.replace(/^https?:\/\//, "")};`).join("\n")}
    keepalive 256;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 2m;
    location / {
      proxy_pass http://toolgate;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Server-sent events and streamed chat turns pass through as they are written.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
    }
  }
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
      if ((await fetch(`${url}/api/auth/csrf`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nginx did not answer: ${stderr}`);
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      process.kill(-child.pid!, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
