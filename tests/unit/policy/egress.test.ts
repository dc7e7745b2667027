// exec.network (issue 28): the pure decision the per-command egress proxy asks for every request, and the policy
// document's new section (added without a version bump: documents stored before it still parse, with no network).
import { describe, expect, it } from "vitest";
import { parsePolicyDocument } from "@/lib/policy";
import { NetworkSettingsSchema, decideEgress, domainMatches, grantCovers, normalizeHost } from "@/lib/policy/egress";

const settings = NetworkSettingsSchema.parse({
  allow: [{ domain: "registry.npmjs.org" }, { domain: "*.example.com", methods: ["get", "post"], ports: [443, 8443] }],
});
const decide = (host: string, port: number, method: string, patterns: string[] = []) =>
  decideEgress({ settings, grants: { patterns }, request: { host, port, method } });

describe("decideEgress", () => {
  it("a listed domain is reachable by CONNECT on its ports; plain HTTP is read-only unless the rule says otherwise", () => {
    expect(decide("registry.npmjs.org", 443, "CONNECT")).toMatchObject({ action: "allow", via: "allowlist" });
    expect(decide("REGISTRY.npmjs.org.", 80, "GET")).toMatchObject({ action: "allow" });
    expect(decide("registry.npmjs.org", 80, "HEAD")).toMatchObject({ action: "allow" });
    expect(decide("registry.npmjs.org", 80, "PUT")).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/PUT is not allowed/),
    });
    expect(decide("registry.npmjs.org", 22, "CONNECT")).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/port 22/),
    });
    expect(decide("api.example.com", 8443, "POST")).toMatchObject({ action: "allow", rule: "*.example.com" });
  });

  it("a wildcard covers names below the domain, never the domain itself nor a look-alike", () => {
    expect(domainMatches("*.example.com", "a.b.example.com")).toBe(true);
    expect(domainMatches("*.example.com", "example.com")).toBe(false);
    expect(domainMatches("*.example.com", "evilexample.com")).toBe(false);
    expect(decide("example.com", 443, "CONNECT")).toMatchObject({ action: "ask", domain: "example.com" });
    expect(decide("registry.npmjs.org.evil.test", 443, "CONNECT")).toMatchObject({
      action: "ask",
      domain: "registry.npmjs.org.evil.test",
    });
  });

  it("addresses and malformed names are refused without asking", () => {
    for (const host of [
      "127.0.0.1",
      "169.254.169.254",
      "[::1]",
      "::1",
      "",
      "a..b",
      "*.example.com",
      "exa mple.com",
      "x".repeat(300),
    ]) {
      expect(decide(host, 443, "CONNECT").action, host).toBe("deny");
      expect(normalizeHost(host), host).toBeNull();
    }
  });

  it("an unlisted domain asks, naming the port unless it is 80 or 443; a grant covers exactly what it names", () => {
    expect(decide("mirror.test", 443, "CONNECT")).toMatchObject({ action: "ask", pattern: "mirror.test" });
    expect(decide("mirror.test", 8080, "GET")).toMatchObject({ action: "ask", pattern: "mirror.test:8080" });
    expect(decide("mirror.test", 443, "CONNECT", ["mirror.test"])).toMatchObject({ action: "allow", via: "grant" });
    expect(decide("mirror.test", 80, "POST", ["mirror.test"])).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/read-only/),
    });
    expect(decide("mirror.test", 8080, "GET", ["mirror.test"])).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/other ports/),
    });
    expect(grantCovers("mirror.test:8080", "mirror.test", 8080)).toBe(true);
    expect(grantCovers("mirror.test:8080", "mirror.test", 443)).toBe(false);
    expect(grantCovers("mirror.test", "sub.mirror.test", 443)).toBe(false);
  });

  it("askUnlisted: false refuses an unlisted domain without asking", () => {
    expect(
      decideEgress({
        settings: { ...settings, askUnlisted: false },
        grants: { patterns: [] },
        request: { host: "x.test", port: 443, method: "CONNECT" },
      }),
    ).toMatchObject({ action: "deny" });
  });
});

describe("exec.network in the policy document", () => {
  it("documents stored before it (version 1 and 2) parse, with no domain listed and asking on", () => {
    for (const input of [
      {},
      { version: 1, exec: { security: "allowlist" } },
      { version: 2, exec: { timeoutMs: 5000 } },
    ]) {
      const parsed = parsePolicyDocument(input);
      expect(parsed.ok).toBe(true);
      if (parsed.ok)
        expect(parsed.document.exec.network).toEqual({
          allow: [],
          uploadBytes: 1024 * 1024,
          askUnlisted: true,
          maxRequestsPerCommand: 3,
        });
    }
  });

  it("a bad rule is refused with the path named: an address, a port out of range, an unknown key, a bad method", () => {
    for (const rule of [
      { domain: "10.0.0.1" },
      { domain: "a.test", ports: [0] },
      { domain: "a.test", ports: [] },
      { domain: "a.test", hosts: ["x"] },
      { domain: "a.test", methods: ["G ET"] },
      { domain: "*" },
    ]) {
      const parsed = parsePolicyDocument({ version: 2, exec: { network: { allow: [rule] } } });
      expect(parsed.ok, JSON.stringify(rule)).toBe(false);
      if (!parsed.ok) expect(JSON.stringify(parsed.issues)).toMatch(/network/);
    }
  });
});
