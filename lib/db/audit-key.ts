import "server-only";
// The audit chain's own key: AUDIT_KEY, or one generated once into data/audit-key (mode 0600) next to the
// database. It is never AUTH_SECRET, so a leaked session secret does not let anyone re-sign the chain, and
// the database alone (without this key) is not enough to rewrite history. Several instances on one
// PostgreSQL database must share AUDIT_KEY.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@/lib/config";

let cached: Buffer | undefined;

export function auditKeyFile(): string {
  // turbopackIgnore: a path known only at run time; without it the build traces the whole project.
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), process.env.AUDIT_KEY_FILE ?? "data/audit-key");
}

export function auditKey(): Buffer {
  if (cached) return cached;
  const configured = loadConfig().AUDIT_KEY;
  if (configured) return (cached = Buffer.from(configured, "utf8"));
  const file = auditKeyFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) {
    // Written aside and linked into place: a concurrent instance sees either no file or the whole key.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    fs.writeFileSync(tmp, randomBytes(32).toString("base64url"), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (text.length < 32) throw new Error(`${file} holds no usable audit key`);
  if (text === loadConfig().AUTH_SECRET) throw new Error("the audit key must differ from AUTH_SECRET");
  return (cached = Buffer.from(text, "utf8"));
}
