// A PostgreSQL cluster of the test's own (initdb in a temporary directory, a random port, its own socket dir),
// so a test may stop and start the database without touching the machine's shared server. Debian's binaries
// (/usr/lib/postgresql/<version>/bin); as root the cluster runs as the `postgres` user (initdb refuses root).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app-server";

export type PrivatePostgres = { url: string; port: number; start: () => void; stop: () => void; destroy: () => void };

/** The newest installed PostgreSQL's bin directory, or null (the caller skips with a message). */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : null;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["postgres:postgres", dir]);
  fs.chmodSync(dir, 0o755);
  const run = (file: string, args: string[]) =>
    execFileSync(
      asRoot ? "runuser" : path.join(bin, file),
      asRoot ? ["-u", "postgres", "--", path.join(bin, file), ...args] : args,
      { stdio: "pipe", cwd: dir, timeout: 120_000 },
    );
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () =>
    void run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-o", options, "-w", "-t", "60", "start"]);
  const stop = () => void run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
  start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy: () => {
      try {
        stop();
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
