// The audit's redaction (also what leaves Toolgate in notifications): every pattern sees the original text, so one
// pattern's replacement never hides another's match.
import { describe, expect, it } from "vitest";
import { DEFAULT_AUDIT_REDACTIONS } from "@/lib/policy";
import { compileRedactions, redactForAudit } from "@/lib/exec/redact";

const defaults = compileRedactions(DEFAULT_AUDIT_REDACTIONS);

describe("audit redaction", () => {
  it("an Authorization: Bearer header loses its token, not only the scheme word", () => {
    const out = String(redactForAudit("curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345' x", defaults));
    expect(out).not.toContain("abcdefghijklmnopqrstuvwxyz012345");
    expect(out).toBe("curl -H 'Authorization: [redacted]' x");
  });

  it("overlapping and adjacent matches become one marker; text around them stays", () => {
    expect(String(redactForAudit("a token=sk-ABCDEFGHIJKLMNOP b", defaults))).toBe("a token=[redacted] b");
    expect(String(redactForAudit("abcabc", compileRedactions(["abc", "cab"])))).toBe("[redacted]");
    expect(String(redactForAudit("x abc y abc", compileRedactions(["abc"])))).toBe("x [redacted] y [redacted]");
    expect(String(redactForAudit("nothing here", defaults))).toBe("nothing here");
  });
});
