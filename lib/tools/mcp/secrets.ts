import "server-only";
// MCP HTTP headers often carry API tokens, so the policy document stores them only encrypted: AES-256-GCM with a
// key derived from AUTH_SECRET by HKDF. The server id is bound as associated data, so a ciphertext copied onto
// another server's entry does not decrypt. Rotating AUTH_SECRET makes stored headers unreadable (re-enter them).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyFrom(secret: string | undefined): Buffer {
  if (!secret) throw new AppError("INTERNAL", "AUTH_SECRET is not set: MCP server headers cannot be encrypted or decrypted");
  return Buffer.from(hkdfSync("sha256", secret, "toolgate", "mcp-server-headers", 32));
}

const authSecret = (): string | undefined => loadConfig().AUTH_SECRET;

export function encryptHeaders(serverId: string, headers: Record<string, string>, secret = authSecret()): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFrom(secret), iv);
  cipher.setAAD(Buffer.from(serverId));
  const body = Buffer.concat([cipher.update(JSON.stringify(headers), "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

export function decryptHeaders(serverId: string, encrypted: string, secret = authSecret()): Record<string, string> {
  const [version, payload] = encrypted.split(":", 2);
  const raw = version === VERSION && payload ? Buffer.from(payload, "base64") : Buffer.alloc(0);
  if (raw.length < IV_BYTES + TAG_BYTES) throw new AppError("TOOL_FAILED", `MCP server ${serverId}: stored headers are not in a known format`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFrom(secret), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(serverId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    return JSON.parse(text) as Record<string, string>;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("TOOL_FAILED", `MCP server ${serverId}: stored headers cannot be decrypted (was AUTH_SECRET changed? re-enter them in the policy editor)`);
  }
}

/**
 * The admin save path calls this on the submitted document before storing it: plaintext `headers` of HTTP servers
 * become `headersEncrypted`. Entries without plaintext headers keep their stored ciphertext. Returns a new object.
 */
export function encryptMcpHeaders<T>(document: T, secret?: string): T {
  const servers = (document as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof document !== "object" || !Array.isArray(servers)) return document;
  const mcpServers = servers.map((entry: unknown) => {
    const server = entry as { id?: unknown; transport?: { type?: unknown; headers?: unknown } };
    const transport = server.transport;
    if (!transport || transport.type !== "http" || typeof transport.headers !== "object" || transport.headers === null) return entry;
    const { headers, ...rest } = transport as { headers: Record<string, string> } & Record<string, unknown>;
    return { ...server, transport: { ...rest, headersEncrypted: encryptHeaders(String(server.id ?? "").trim(), headers, secret ?? authSecret()) } };
  });
  return { ...document, mcpServers };
}
