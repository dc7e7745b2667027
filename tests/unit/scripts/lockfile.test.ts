// package-lock.json must satisfy `npm ci` on every platform: its root entry mirrors package.json and every
// optional dependency of a locked package (other platforms' native builds included) has an entry. The first
// test checks the committed lock itself, so a dependency change without `npm run lock:refresh` fails here.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  findMissingOptional,
  lockEntryFor,
  placeEntry,
  platformFromName,
  resolveLockPath,
  rootDrift,
  type Lock,
} from "@/scripts/lib/lockfile.mjs";

const ROOT = path.resolve(__dirname, "../../..");

describe("the committed package-lock.json", () => {
  it("is in sync with package.json and complete for every platform (else: npm run lock:refresh)", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as Lock;
    expect(rootDrift(pkg, lock)).toEqual([]);
    expect(findMissingOptional(lock)).toEqual([]);
    // The platform builds npm ci wants on macOS and Windows are there, marked so other platforms skip them.
    expect(lock.packages?.["node_modules/@next/swc-darwin-arm64"]).toMatchObject({
      optional: true,
      os: ["darwin"],
      cpu: ["arm64"],
    });
    expect(lock.packages?.["node_modules/@next/swc-win32-x64-msvc"]).toMatchObject({
      optional: true,
      os: ["win32"],
      cpu: ["x64"],
    });
  });
});

describe("finding what npm ci would call missing", () => {
  const lock: Lock = {
    packages: {
      "": { dependencies: { next: "16.0.0" } },
      "node_modules/next": {
        version: "16.0.0",
        optionalDependencies: { "@next/swc-linux-x64-gnu": "16.0.0", "@next/swc-darwin-arm64": "16.0.0" },
      },
      "node_modules/@next/swc-linux-x64-gnu": { version: "16.0.0", optional: true, os: ["linux"], cpu: ["x64"] },
      "node_modules/a": { version: "1.0.0", dev: true },
      "node_modules/a/node_modules/b": {
        version: "2.0.0",
        dev: true,
        optionalDependencies: { "b-win": "2.0.0", c: "1.0.0" },
      },
      "node_modules/a/node_modules/c": { version: "1.0.0", dev: true },
    },
  };

  it("resolves like Node: nested first, then each ancestor, then the root", () => {
    const p = lock.packages!;
    expect(resolveLockPath(p, "node_modules/a/node_modules/b", "c")).toBe("node_modules/a/node_modules/c");
    expect(resolveLockPath(p, "node_modules/a/node_modules/b", "next")).toBe("node_modules/next");
    expect(resolveLockPath(p, "node_modules/next", "nope")).toBeNull();
  });

  it("reports exactly the optional dependencies with no entry anywhere Node would look", () => {
    expect(findMissingOptional(lock)).toEqual([
      { from: "node_modules/next", name: "@next/swc-darwin-arm64", spec: "16.0.0", dev: false },
      { from: "node_modules/a/node_modules/b", name: "b-win", spec: "2.0.0", dev: true },
    ]);
  });

  it("places a filled-in entry at the root when free, else beside its parent", () => {
    expect(placeEntry(lock.packages!, { from: "node_modules/next", name: "@next/swc-darwin-arm64" })).toBe(
      "node_modules/@next/swc-darwin-arm64",
    );
    expect(placeEntry(lock.packages!, { from: "node_modules/a/node_modules/b", name: "b-win" })).toBe(
      "node_modules/b-win",
    );
    // The root's "a" is another package: b's own "a" must sit below b.
    expect(placeEntry(lock.packages!, { from: "node_modules/a/node_modules/b", name: "a" })).toBe(
      "node_modules/a/node_modules/b/node_modules/a",
    );
  });

  it("reports drift between package.json and the lock's root entry in both directions", () => {
    const pkg = { dependencies: { next: "16.0.1", zod: "^4.2.0" } };
    expect(rootDrift(pkg, lock)).toEqual([
      "dependencies.next: package.json 16.0.1, lock 16.0.0",
      "dependencies.zod: package.json ^4.2.0, lock (none)",
    ]);
    expect(rootDrift({ dependencies: {} }, lock)).toEqual(["dependencies.next: package.json (none), lock 16.0.0"]);
  });
});

describe("lock entries for platform builds", () => {
  it.each([
    ["@next/swc-darwin-arm64", { os: ["darwin"], cpu: ["arm64"] }],
    ["@next/swc-win32-x64-msvc", { os: ["win32"], cpu: ["x64"] }],
    ["@next/swc-linux-x64-musl", { os: ["linux"], cpu: ["x64"], libc: ["musl"] }],
    ["@unrs/resolver-binding-linux-arm-musleabihf", { os: ["linux"], cpu: ["arm"], libc: ["musl"] }],
    ["@unrs/resolver-binding-linux-riscv64-gnu", { os: ["linux"], cpu: ["riscv64"], libc: ["glibc"] }],
    ["@tailwindcss/oxide-wasm32-wasi", { cpu: ["wasm32"] }],
    ["@tailwindcss/oxide-freebsd-x64", { os: ["freebsd"], cpu: ["x64"] }],
  ])("%s: the platform from its name", (name, platform) => {
    expect(platformFromName(name)).toEqual(platform);
  });

  it("a name that states no platform gives none (never a guess)", () => {
    expect(platformFromName("left-pad")).toBeNull();
    expect(platformFromName("@scope/thing-arm64")).toBeNull();
  });

  it("prefers the registry's manifest: version, integrity and platform as published", () => {
    const entry = lockEntryFor(
      { from: "node_modules/x", name: "@x/bin-linux-x64", spec: "^1.0.0", dev: true },
      {
        version: "1.2.0",
        os: ["linux"],
        cpu: ["x64"],
        libc: ["glibc"],
        license: "MIT",
        dist: { integrity: "sha512-abc" },
      },
    );
    expect(entry).toEqual({
      version: "1.2.0",
      integrity: "sha512-abc",
      cpu: ["x64"],
      dev: true,
      libc: ["glibc"],
      license: "MIT",
      optional: true,
      os: ["linux"],
    });
  });

  it("without a manifest: the exact version its parent pins, the platform of another version or of its name", () => {
    const item = { from: "node_modules/next", name: "@next/swc-darwin-x64", spec: "16.4.6", dev: false };
    expect(lockEntryFor(item, null)).toEqual({ version: "16.4.6", cpu: ["x64"], optional: true, os: ["darwin"] });
    expect(lockEntryFor(item, null, { os: "darwin", cpu: "x64" })).toEqual({
      version: "16.4.6",
      cpu: ["x64"],
      optional: true,
      os: ["darwin"],
    });
  });

  it("refuses to invent a version for a range, or a platform it cannot tell", () => {
    expect(() =>
      lockEntryFor({ from: "node_modules/x", name: "@x/bin-darwin-arm64", spec: "^1.0.0", dev: false }, null),
    ).toThrow(/not exact/);
    expect(() => lockEntryFor({ from: "node_modules/x", name: "@x/helper", spec: "1.0.0", dev: false }, null)).toThrow(
      /platform/,
    );
  });
});
