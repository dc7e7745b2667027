// A local npm registry fixture: one package (left-pad@1.3.0, a stand-in with the real name) served as a packument
// and a tarball, so `npm install` runs for real through the egress proxy without reaching the internet.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export type NpmRegistryFixture = { port: number; requests: string[]; close(): Promise<void> };

function packTarball(): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolgate-npm-fixture-"));
  try {
    mkdirSync(path.join(dir, "package"));
    writeFileSync(
      path.join(dir, "package", "package.json"),
      JSON.stringify({ name: "left-pad", version: "1.3.0", main: "index.js", license: "WTFPL" }),
    );
    writeFileSync(
      path.join(dir, "package", "index.js"),
      "module.exports = (s, n, c = ' ') => String(s).padStart(n, c);\n",
    );
    execFileSync("tar", ["czf", "pkg.tgz", "package"], { cwd: dir });
    return readFileSync(path.join(dir, "pkg.tgz"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `publicBase` is the registry URL the client uses (e.g. http://registry.local.test/): tarball links point there. */
export async function startNpmRegistry(publicBase: string): Promise<NpmRegistryFixture> {
  const tarball = packTarball();
  const requests: string[] = [];
  const dist = {
    tarball: new URL("left-pad/-/left-pad-1.3.0.tgz", publicBase).toString(),
    shasum: createHash("sha1").update(tarball).digest("hex"),
    integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
  };
  const packument = {
    name: "left-pad",
    "dist-tags": { latest: "1.3.0" },
    versions: { "1.3.0": { name: "left-pad", version: "1.3.0", main: "index.js", dist } },
  };
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.method === "GET" && req.url === "/left-pad")
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
    if (req.method === "GET" && req.url === "/left-pad/-/left-pad-1.3.0.tgz")
      return void res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
    res.writeHead(404, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
