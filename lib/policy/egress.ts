// Network by domain for sandboxed exec (issue 28): which host a command's egress proxy may reach. Pure: the proxy
// (lib/tools/egress-proxy.ts) asks this for every CONNECT and every plain-HTTP request, with what it knows about
// the member's grants; the answer is run, refuse, or refuse and ask an owner.
import { z } from "zod";

const DOMAIN = /^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HTTP_METHOD = /^[A-Z]{1,20}$/;

/** Plain HTTP to a listed domain is read-only unless its rule names more methods. */
export const READ_ONLY_METHODS: readonly string[] = Object.freeze(["GET", "HEAD"]);
export const DEFAULT_EGRESS_PORTS: readonly number[] = Object.freeze([80, 443]);

export const EgressRuleSchema = z
  .object({
    /** `registry.npmjs.org`, or `*.example.com` for every name below example.com (not example.com itself). */
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .max(253)
      .regex(DOMAIN, "a domain name such as registry.npmjs.org or *.example.com")
      // The proxy never connects to an address by rule (normalizeHost refuses them): a listed one would only mislead.
      .refine((d) => !/^[0-9.]+$/.test(d.replace(/^\*\./, "")), "an address is not a domain name"),
    /** Methods plain HTTP may use; CONNECT (HTTPS) is reachable or not and carries whatever the client sends. */
    methods: z.array(z.string().trim().toUpperCase().regex(HTTP_METHOD)).default(() => [...READ_ONLY_METHODS]),
    ports: z
      .array(z.number().int().min(1).max(65_535))
      .min(1)
      .default(() => [...DEFAULT_EGRESS_PORTS]),
  })
  .strict();
export type EgressRule = z.output<typeof EgressRuleSchema>;

export const NetworkSettingsSchema = z
  .object({
    /** Domains any command in the sandbox may reach without an owner (e.g. registry.npmjs.org for npm install). */
    allow: z
      .array(EgressRuleSchema)
      .max(500)
      .default(() => []),
    /** Bytes one command may send out in total (request bodies and tunnelled bytes, all connections together). */
    uploadBytes: z
      .number()
      .int()
      .min(0)
      .default(1024 * 1024),
    /** An unlisted domain becomes an approval naming it; off: it is only refused. */
    askUnlisted: z.boolean().default(true),
    /** At most this many domain approvals one command may ask for; the rest are refused without asking. */
    maxRequestsPerCommand: z.number().int().min(0).max(20).default(3),
  })
  .strict();
export type NetworkSettings = z.output<typeof NetworkSettingsSchema>;

/** Lower case, no trailing dot; null for anything that is not a domain name (IP literals included). */
export function normalizeHost(host: string): string | null {
  const h = host.trim().toLowerCase().replace(/\.$/, "");
  if (h.length === 0 || h.length > 253 || h.startsWith("*.")) return null;
  if (!DOMAIN.test(h)) return null;
  // A dotted quad is an address, not a domain: addresses are never listed or granted (they skip the name check).
  if (/^[0-9.]+$/.test(h)) return null;
  return h;
}

/** `*.example.com` covers a.example.com and a.b.example.com, never example.com; other patterns match exactly. */
export function domainMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/**
 * What a domain approval asks for and its grant stores: the domain alone for ports 80 and 443, else `domain:port`
 * (an owner who allowed a registry on 443 did not allow whatever else listens on that host).
 */
export function domainGrantPattern(host: string, port: number): string {
  return DEFAULT_EGRESS_PORTS.includes(port) ? host : `${host}:${port}`;
}

export function grantCovers(pattern: string, host: string, port: number): boolean {
  const [domain = "", portText] = pattern.split(":");
  if (!domainMatches(domain, host)) return false;
  return portText === undefined ? DEFAULT_EGRESS_PORTS.includes(port) : Number(portText) === port;
}

export type EgressRequest = {
  host: string;
  port: number;
  /** "CONNECT" for an HTTPS tunnel, else the plain-HTTP method. */
  method: string;
};

export type EgressGrants = {
  /** Domain patterns granted to this member (theirs, their teams', their agent's, everyone's), not expired. */
  patterns: readonly string[];
};

export type EgressVerdict =
  | { action: "allow"; via: "allowlist" | "grant"; rule: string }
  | { action: "deny"; reason: string }
  | { action: "ask"; domain: string; pattern: string; reason: string };

/** An unlisted domain a command tried: what its approval names and its grant would store (`pattern`). */
export type AskedDomain = EgressRequest & { pattern: string };

export function decideEgress({
  settings,
  grants,
  request,
}: {
  settings: Pick<NetworkSettings, "allow" | "askUnlisted">;
  grants: EgressGrants;
  request: EgressRequest;
}): EgressVerdict {
  const host = normalizeHost(request.host);
  if (!host)
    return {
      action: "deny",
      reason: `"${request.host.slice(0, 100)}" is not a domain name (addresses are never reachable by name rules)`,
    };
  const method = request.method.toUpperCase();
  const rule = settings.allow.find((r) => domainMatches(r.domain, host));
  if (rule) {
    if (!rule.ports.includes(request.port))
      return {
        action: "deny",
        reason: `${host}: port ${request.port} is not among the rule's ports (${rule.ports.join(", ")})`,
      };
    if (method !== "CONNECT" && !rule.methods.includes(method))
      return {
        action: "deny",
        reason: `${host}: plain HTTP ${method} is not allowed (the rule allows ${rule.methods.join(", ")})`,
      };
    return { action: "allow", via: "allowlist", rule: rule.domain };
  }
  const granted = grants.patterns.find((p) => grantCovers(p, host, request.port));
  if (granted) {
    // A grant is what an owner saw on the card: the domain (on the port it named), read-only over plain HTTP.
    if (method !== "CONNECT" && !READ_ONLY_METHODS.includes(method))
      return { action: "deny", reason: `${host}: a granted domain is read-only over plain HTTP (GET, HEAD)` };
    return { action: "allow", via: "grant", rule: granted };
  }
  const named = domainGrantPattern(host, request.port);
  if (grants.patterns.some((p) => domainMatches(p.split(":")[0] ?? "", host)))
    return { action: "deny", reason: `${host}: its grant covers other ports, not ${request.port}` };
  if (!settings.askUnlisted)
    return { action: "deny", reason: `${host} is not on the network allowlist (exec.network.allow)` };
  return {
    action: "ask",
    domain: host,
    pattern: named,
    reason: `the command tried to reach ${named}, which is not on the network allowlist`,
  };
}
