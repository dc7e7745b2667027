import "server-only";
// MCP HTTP headers and stdio `env` often carry API tokens, so the policy document stores them only encrypted:
// AES-256-GCM with a key derived from AUTH_SECRET by HKDF. The server id (and for env a ":env" suffix) is bound
// as associated data, so a ciphertext copied onto another server's entry, or from headers to env, does not
// decrypt. Rotating AUTH_SECRET makes stored secrets unreadable (re-enter them). They are write-only through
// the API: GET shows the names with masked values, and a masked value sent back keeps the stored one.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { SECRET_MASK } from "@/lib/policy/mcp-servers";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyFrom(secret: string | undefined): Buffer {
  if (!secret)
    throw new AppError("INTERNAL", "AUTH_SECRET is not set: MCP server headers cannot be encrypted or decrypted");
  return Buffer.from(hkdfSync("sha256", secret, "toolgate", "mcp-server-headers", 32));
}

const authSecret = (): string | undefined => loadConfig().AUTH_SECRET;

export { SECRET_MASK };

const envAad = (serverId: string) => `${serverId}:env`;

export function encryptHeaders(serverId: string, headers: Record<string, string>, secret = authSecret()): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFrom(secret), iv);
  cipher.setAAD(Buffer.from(serverId));
  const body = Buffer.concat([cipher.update(JSON.stringify(headers), "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

export function decryptHeaders(serverId: string, encrypted: string, secret = authSecret()): Record<string, string> {
  return decryptFor(serverId, serverId, encrypted, secret, "headers");
}

export function encryptEnv(serverId: string, env: Record<string, string>, secret = authSecret()): string {
  return encryptHeaders(envAad(serverId), env, secret);
}

export function decryptEnv(serverId: string, encrypted: string, secret = authSecret()): Record<string, string> {
  return decryptFor(serverId, envAad(serverId), encrypted, secret, "env");
}

function decryptFor(
  serverId: string,
  aad: string,
  encrypted: string,
  secret: string | undefined,
  what: string,
): Record<string, string> {
  const [version, payload] = encrypted.split(":", 2);
  const raw = version === VERSION && payload ? Buffer.from(payload, "base64") : Buffer.alloc(0);
  if (raw.length < IV_BYTES + TAG_BYTES)
    throw new AppError("TOOL_FAILED", `MCP server ${serverId}: stored ${what} are not in a known format`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFrom(secret), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
    return JSON.parse(text) as Record<string, string>;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(
      "TOOL_FAILED",
      `MCP server ${serverId}: stored ${what} cannot be decrypted (was AUTH_SECRET changed? re-enter them in the policy editor)`,
    );
  }
}

type ServerEntry = { id?: unknown; transport?: Record<string, unknown> & { type?: unknown } };
type SecretField = {
  plain: "headers" | "env";
  sealed: "headersEncrypted" | "envEncrypted";
  seal: typeof encryptEnv;
  open: typeof decryptEnv;
};

const FIELDS: Record<string, SecretField> = {
  http: { plain: "headers", sealed: "headersEncrypted", seal: encryptHeaders, open: decryptHeaders },
  stdio: { plain: "env", sealed: "envEncrypted", seal: encryptEnv, open: decryptEnv },
};

function mapServers<T>(document: T, fn: (server: ServerEntry, field: SecretField, id: string) => ServerEntry): T {
  const servers = (document as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof document !== "object" || document === null || !Array.isArray(servers)) return document;
  const mcpServers = servers.map((entry: unknown) => {
    const server = entry as ServerEntry;
    const field = FIELDS[String(server?.transport?.type)];
    return field && server.transport ? fn(server, field, String(server.id ?? "").trim()) : entry;
  });
  return { ...document, mcpServers };
}

/**
 * Where a server's secrets go: an HTTP server's URL origin, a stdio server's command and arguments. A stored secret
 * follows its server only while this stays the same: otherwise an edit of the URL (or the command, which could print
 * its environment) would send a token the editor never saw to a place its owner never chose.
 */
function destinationOf(server: ServerEntry, field: SecretField): string {
  const t = server.transport ?? {};
  if (field.plain === "env") return JSON.stringify([t.command, t.args ?? []]);
  try {
    return new URL(String(t.url)).origin;
  } catch {
    return String(t.url);
  }
}

type Stored = { values?: Record<string, string>; sealed: unknown; destination: string };

function storedSecrets(previous: unknown, secret: string | undefined): Map<string, Stored> {
  const found = new Map<string, Stored>();
  mapServers(previous, (server, field, id) => {
    const sealed = server.transport?.[field.sealed];
    const entry: Stored = { sealed, destination: destinationOf(server, field) };
    if (typeof sealed === "string") {
      try {
        entry.values = field.open(id, sealed, secret);
      } catch {
        // unreadable (AUTH_SECRET changed): masked values for it must be re-entered
      }
    }
    found.set(`${field.plain}:${id}`, entry);
    return server;
  });
  return found;
}

/**
 * The admin save path calls this on the submitted document before storing it: plaintext `headers` (HTTP) and
 * `env` (stdio) become `headersEncrypted` / `envEncrypted`. A value equal to SECRET_MASK keeps the value stored
 * in `previous` (the document in force) under the same server id and name, as long as the server's destination
 * (destinationOf) is unchanged. Entries without plaintext keep their ciphertext, on the same condition.
 */
export function encryptMcpSecrets<T>(document: T, previous?: unknown, secret?: string): T {
  const stored = storedSecrets(previous, secret ?? authSecret());
  return mapServers(document, (server, field, id) => {
    const before = stored.get(`${field.plain}:${id}`);
    const moved = before !== undefined && before.destination !== destinationOf(server, field);
    const where = field.plain === "env" ? "command or arguments" : "URL's origin";
    const plain = server.transport?.[field.plain];
    if (typeof plain !== "object" || plain === null) {
      if (
        moved &&
        typeof server.transport?.[field.sealed] === "string" &&
        server.transport?.[field.sealed] === before.sealed
      ) {
        throw new AppError(
          "VALIDATION_FAILED",
          `mcpServers ${id}: its ${where} changed, so its stored ${field.plain} are not sent there; enter them again`,
        );
      }
      return server;
    }
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(plain as Record<string, unknown>)) {
      if (value !== SECRET_MASK) {
        values[name] = String(value);
        continue;
      }
      const kept = before?.values?.[name];
      if (kept === undefined)
        throw new AppError(
          "VALIDATION_FAILED",
          `mcpServers ${id}: ${field.plain}.${name} is masked but no stored value exists; enter it again`,
        );
      if (moved)
        throw new AppError(
          "VALIDATION_FAILED",
          `mcpServers ${id}: its ${where} changed, so the stored ${field.plain}.${name} is not sent there; enter it again`,
        );
      values[name] = kept;
    }
    const { [field.plain]: _plain, ...rest } = server.transport!;
    return { ...server, transport: { ...rest, [field.sealed]: field.seal(id, values, secret ?? authSecret()) } };
  });
}

/** What the API shows: secret names with SECRET_MASK values, never the ciphertext or the plaintext. */
export function maskMcpSecrets<T>(document: T, secret?: string): T {
  return mapServers(document, (server, field, id) => {
    const t = server.transport!;
    const sealed = t[field.sealed];
    const names = new Set<string>(Object.keys((t[field.plain] as Record<string, string> | undefined) ?? {}));
    if (typeof sealed === "string") {
      try {
        Object.keys(field.open(id, sealed, secret ?? authSecret())).forEach((n) => names.add(n));
      } catch {
        // unreadable: shown without names; the admin re-enters them
      }
    }
    const { [field.sealed]: _sealed, [field.plain]: _plain, ...rest } = t;
    return names.size
      ? {
          ...server,
          transport: { ...rest, [field.plain]: Object.fromEntries([...names].map((n) => [n, SECRET_MASK])) },
        }
      : { ...server, transport: rest };
  });
}
