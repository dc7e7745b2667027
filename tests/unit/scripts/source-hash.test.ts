// The build skip of `npm start` / `npm test`: a second run with unchanged sources must not rebuild, and any
// change that a production build would see must rebuild. Real files in a temporary project tree.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUILD_HASH_FILE,
  CLIENT_HASH_FILE,
  buildHash,
  buildInputs,
  buildIsCurrent,
  clientHash,
  clientsAreCurrent,
  recordHash,
} from "@/scripts/lib/source-hash.mjs";

let root: string;
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-hash-"));
  write("app/page.tsx", "export default function Page() { return null; }\n");
  write("lib/policy/engine.ts", "export const x = 1;\n");
  write("components/a.tsx", "export const A = 1;\n");
  write("prisma/schema.base.prisma", "model User { id String @id }\n");
  write("scripts/db.mjs", "// generator\n");
  write("package.json", "{}\n");
  write("package-lock.json", "{}\n");
  write("next.config.ts", "export default {};\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A finished build of the current sources, as ensureBuild leaves it. */
function build() {
  write(".next/BUILD_ID", "abc\n");
  recordHash(root, BUILD_HASH_FILE, buildHash(root, {}));
}

describe("build source hash", () => {
  it("a second run with unchanged sources finds the build current", () => {
    build();
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(true);
    // Touching files without changing them (a checkout, a copy) does not count as a change.
    const later = new Date(Date.now() + 60_000);
    for (const f of buildInputs(root)) fs.utimesSync(path.join(root, f), later, later);
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(true);
  });

  it.each([
    ["an edited page", () => write("app/page.tsx", "export default function Page() { return 1; }\n")],
    ["an edited lib file", () => write("lib/policy/engine.ts", "export const x = 2;\n")],
    ["a new component", () => write("components/b.tsx", "export const B = 1;\n")],
    ["a deleted file", () => fs.rmSync(path.join(root, "components/a.tsx"))],
    [
      "a renamed file with the same content",
      () => fs.renameSync(path.join(root, "components/a.tsx"), path.join(root, "components/c.tsx")),
    ],
    ["a schema change", () => write("prisma/schema.base.prisma", "model User { id String @id\n name String }\n")],
    ["a new locked dependency", () => write("package-lock.json", '{"packages":{}}\n')],
    ["a config change", () => write("next.config.ts", "export default { poweredByHeader: false };\n")],
  ])("%s makes the build stale", (_what, change) => {
    build();
    change();
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(false);
  });

  it.each([
    ["tests", "tests/unit/x.test.ts"],
    ["docs and READMEs", "docs/requirements.md"],
    ["the README", "README.md"],
    ["runtime data", "data/toolgate.db"],
    ["the build output itself", ".next/server/chunk.js"],
    ["installed packages", "node_modules/x/index.js"],
    ["generated Prisma clients", "lib/generated/sqlite/client.ts"],
    ["next-env.d.ts, which next build writes", "next-env.d.ts"],
    ["tooling scripts", "scripts/start.mjs"],
    ["the lint configuration", "eslint.config.mjs"],
    ["the test configuration", "vitest.config.ts"],
  ])("changes to %s do not rebuild", (_what, rel) => {
    build();
    write(rel, `changed ${Math.random()}\n`);
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(true);
  });

  it("NEXT_PUBLIC_ variables are inlined by the build, so they count; others do not", () => {
    build();
    expect(buildIsCurrent(root, buildHash(root, { AUTH_SECRET: "s", DATABASE_URL: "file:x" }))).toBe(true);
    expect(buildIsCurrent(root, buildHash(root, { NEXT_PUBLIC_TITLE: "x" }))).toBe(false);
  });

  it("without BUILD_ID (a build that died half-way, or none) nothing is current, whatever hash is stored", () => {
    recordHash(root, BUILD_HASH_FILE, buildHash(root, {}));
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(false);
  });

  it("a hash recorded for other sources does not match", () => {
    write(".next/BUILD_ID", "abc\n");
    recordHash(root, BUILD_HASH_FILE, "0".repeat(64));
    expect(buildIsCurrent(root, buildHash(root, {}))).toBe(false);
  });
});

describe("Prisma client hash", () => {
  function generate() {
    write("lib/generated/sqlite/client.ts", "// client\n");
    write("lib/generated/postgres/client.ts", "// client\n");
    recordHash(root, CLIENT_HASH_FILE, clientHash(root));
  }

  it("clients generated from the same schema are current; a schema edit or a missing client is not", () => {
    expect(clientsAreCurrent(root, clientHash(root))).toBe(false);
    generate();
    expect(clientsAreCurrent(root, clientHash(root))).toBe(true);
    write("app/page.tsx", "// app edits do not regenerate\n");
    expect(clientsAreCurrent(root, clientHash(root))).toBe(true);
    write("prisma/schema.base.prisma", "model User { id String @id\n email String }\n");
    expect(clientsAreCurrent(root, clientHash(root))).toBe(false);
    generate();
    fs.rmSync(path.join(root, "lib/generated/postgres"), { recursive: true });
    expect(clientsAreCurrent(root, clientHash(root))).toBe(false);
  });
});
