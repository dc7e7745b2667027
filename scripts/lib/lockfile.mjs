// package-lock.json completeness. `npm ci` refuses a lock that lacks an entry for any optional dependency of a
// locked package, including the other platforms' native builds (`@next/swc-darwin-arm64`, ...). npm leaves such
// an entry out when it cannot read the package from the registry it talks to (the registry these machines reach
// does not carry every platform build of every version) or when it resolves with a node_modules present
// (npm/cli#4828). These helpers find the gaps and describe the entries that fill them.

/** Where Node would find `name` from the package at `fromPath` (a lock key such as "node_modules/next"). */
export function resolveLockPath(packages, fromPath, name) {
  let base = fromPath;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

/** Optional dependencies of locked packages that have no lock entry at all: what `npm ci` reports as "Missing". */
export function findMissingOptional(lock) {
  const packages = lock.packages ?? {};
  const missing = [];
  for (const [from, entry] of Object.entries(packages)) {
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      if (resolveLockPath(packages, from, name)) continue;
      missing.push({ from, name, spec, dev: entry.dev === true });
    }
  }
  return missing;
}

const OS = ["darwin", "linux", "win32", "freebsd", "android", "openharmony", "sunos", "aix", "netbsd", "openbsd"];
const CPU = ["arm64", "x64", "ia32", "arm", "ppc64", "riscv64", "s390x", "loong64", "wasm32", "mips64el"];

/**
 * os / cpu / libc of a platform package from its name, used only when the registry has no manifest for it:
 * the conventions of @next/swc-*, @tailwindcss/oxide-*, @unrs/resolver-binding-*, @esbuild/*, @rollup/rollup-*.
 * Returns null when the name does not say (then the caller must not guess).
 */
export function platformFromName(name) {
  const tokens = name.split("/").pop().split("-");
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.find((t) => CPU.includes(t));
  if (!cpu) return null;
  const result = { cpu: [cpu] };
  if (os) result.os = [os];
  else if (cpu !== "wasm32") return null;
  if (os === "linux") {
    if (tokens.some((t) => t.startsWith("musl"))) result.libc = ["musl"];
    else if (tokens.some((t) => t === "gnu" || t.startsWith("gnueabi"))) result.libc = ["glibc"];
  }
  return result;
}

/**
 * The lock entry for a missing optional package. `manifest` is the registry's manifest of that exact version
 * (or null when the registry lacks it: then version comes from an exact spec and the platform from the name).
 * The entry always carries os/cpu so npm skips it on other platforms without asking the registry.
 */
export function lockEntryFor({ name, spec, dev }, manifest, platformManifest) {
  const version = manifest?.version ?? (/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec) ? spec : null);
  if (!version) throw new Error(`${name}@${spec}: the registry has no such version and the spec is not exact`);
  const platform = pickPlatform(manifest) ?? pickPlatform(platformManifest) ?? platformFromName(name);
  if (!platform) throw new Error(`${name}@${version}: cannot tell its platform (no manifest, name says nothing)`);
  const entry = { version };
  if (manifest?.dist?.integrity) entry.integrity = manifest.dist.integrity;
  if (platform.cpu) entry.cpu = platform.cpu;
  if (dev) entry.dev = true;
  if (platform.libc) entry.libc = platform.libc;
  if (manifest?.license) entry.license = manifest.license;
  entry.optional = true;
  if (platform.os) entry.os = platform.os;
  return entry;
}

function pickPlatform(manifest) {
  if (!manifest || (!manifest.os && !manifest.cpu)) return null;
  const out = {};
  for (const key of ["os", "cpu", "libc"]) {
    const value = manifest[key];
    if (value) out[key] = Array.isArray(value) ? value : [value];
  }
  return out;
}

/** Lock key for a filled-in entry: hoisted to the root when free there, else beside its parent. */
export function placeEntry(packages, { from, name }) {
  const top = `node_modules/${name}`;
  return packages[top] ? `${from}/node_modules/${name}` : top;
}

/** The dependency sets of package.json that the lock's root entry must mirror. */
export function rootDrift(pkg, lock) {
  const root = lock.packages?.[""] ?? {};
  const drift = [];
  for (const field of ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"]) {
    const want = pkg[field] ?? {};
    const have = root[field] ?? {};
    for (const name of new Set([...Object.keys(want), ...Object.keys(have)])) {
      if (want[name] !== have[name])
        drift.push(`${field}.${name}: package.json ${want[name] ?? "(none)"}, lock ${have[name] ?? "(none)"}`);
    }
  }
  return drift;
}

/** Sorted keys, as npm writes them, so a refreshed lock diffs cleanly. */
export function sortPackages(packages) {
  const [rootKey, ...rest] = Object.keys(packages).sort((a, b) =>
    a === "" ? -1 : b === "" ? 1 : a.localeCompare(b, "en"),
  );
  return Object.fromEntries([[rootKey, packages[rootKey]], ...rest.map((k) => [k, packages[k]])]);
}
