// Content hashes that let `npm start`, `npm test` and `npm run bench` skip work whose inputs did not change:
// the production build (hash stored beside it in .next/) and the Prisma clients (hash stored in lib/generated/).
// Content, not mtimes: a checkout or a copy touches every file without changing what a build would produce.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Paths (relative, "/"-separated) that never feed the production build: outputs, data, tests, tooling, docs. */
const BUILD_IGNORED_DIRS = new Set([
  ".git",
  ".next",
  ".ci",
  "node_modules",
  "data",
  "lib/generated",
  "tests",
  "bench",
  "docs",
  "test-results",
  "playwright-report",
  "tmp",
  "scripts",
]);
const BUILD_IGNORED_FILES = [
  /\.md$/i,
  /\.tsbuildinfo$/,
  /^next-env\.d\.ts$/,
  /(^|\/)\.env(\..*)?$/,
  /(^|\/)\.DS_Store$/,
  // Tooling configuration the build never reads.
  /^(eslint\.config\.mjs|vitest\.config\.ts|playwright\.config\.ts|\.gitignore)$/,
];

export const BUILD_HASH_FILE = ".next/toolgate-source-hash";
export const CLIENT_HASH_FILE = "lib/generated/.toolgate-schema-hash";

/** Every file under `root` that a production build reads, sorted, relative with "/" separators. */
export function buildInputs(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!BUILD_IGNORED_DIRS.has(rel)) walk(rel);
      } else if (entry.isFile() && !BUILD_IGNORED_FILES.some((re) => re.test(rel))) {
        out.push(rel);
      }
    }
  };
  walk("");
  return out.sort();
}

/** Hash of file names and contents, plus the environment a build inlines (NEXT_PUBLIC_*). */
export function hashFiles(root, files, env = {}) {
  const hash = crypto.createHash("sha256");
  for (const rel of files) {
    hash.update(`${rel}\0`);
    hash.update(fs.readFileSync(path.join(root, rel)));
    hash.update("\0");
  }
  for (const key of Object.keys(env)
    .filter((k) => k.startsWith("NEXT_PUBLIC_"))
    .sort())
    hash.update(`${key}=${env[key]}\0`);
  return hash.digest("hex");
}

export function buildHash(root, env = process.env) {
  return hashFiles(root, buildInputs(root), env);
}

/** Files the Prisma clients come from: the schema source, the generator (scripts/db.mjs) and the locked versions. */
export function clientHash(root) {
  return hashFiles(
    root,
    ["prisma/schema.base.prisma", "scripts/db.mjs", "package-lock.json"].filter((f) =>
      fs.existsSync(path.join(root, f)),
    ),
  );
}

function readStored(root, file) {
  try {
    return fs.readFileSync(path.join(root, file), "utf8").trim();
  } catch {
    return null;
  }
}

/** True when a complete build exists whose recorded source hash equals `hash`. */
export function buildIsCurrent(root, hash) {
  return fs.existsSync(path.join(root, ".next/BUILD_ID")) && readStored(root, BUILD_HASH_FILE) === hash;
}

export function clientsAreCurrent(root, hash) {
  return (
    ["lib/generated/sqlite", "lib/generated/postgres"].every((d) => fs.existsSync(path.join(root, d))) &&
    readStored(root, CLIENT_HASH_FILE) === hash
  );
}

/** Records `hash` beside the output; call only after the build (or generation) succeeded. */
export function recordHash(root, file, hash) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), `${hash}\n`);
}
