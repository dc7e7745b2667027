import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pkceMatches, redirectUriMatches, redirectUriProblem } from "@/lib/oauth/redirect-uri";

describe("redirect URIs", () => {
  it("registers https, loopback http and private-use schemes; refuses the rest", () => {
    for (const ok of [
      "https://app.example/cb",
      "http://127.0.0.1:8080/cb",
      "http://[::1]/cb",
      "http://localhost:1234/callback",
      "cursor://anysphere.cursor-retrieval/oauth/callback",
    ]) {
      expect(redirectUriProblem(ok), ok).toBeNull();
    }
    for (const bad of [
      "http://app.example/cb",
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///etc/passwd",
      "https://app.example/cb#x",
      "https://user:pw@app.example/cb",
      "/relative",
      "http://127.0.0.1.evil.example/cb",
    ]) {
      expect(redirectUriProblem(bad), bad).not.toBeNull();
    }
  });

  it("matches exactly; a loopback URI on any port, nothing else loosened", () => {
    const registered = ["https://app.example/cb", "http://127.0.0.1:4000/cb?x=1"];
    expect(redirectUriMatches(registered, "https://app.example/cb")).toBe(true);
    expect(redirectUriMatches(registered, "http://127.0.0.1:5999/cb?x=1")).toBe(true);
    expect(redirectUriMatches(registered, "http://127.0.0.1/cb?x=1")).toBe(true);
    for (const bad of [
      "https://app.example/cb/",
      "https://app.example/cb?",
      "https://app.example/CB",
      "https://app.example:443/cb",
      "https://app.example/cb#x",
      "http://127.0.0.1:4000/cb",
      "http://127.0.0.1:4000/cb?x=2",
      "http://localhost:4000/cb?x=1",
      "http://[::1]:4000/cb?x=1",
      "https://127.0.0.1:4000/cb?x=1",
      "http://127.0.0.1:4000@evil.example/cb?x=1",
    ]) {
      expect(redirectUriMatches(registered, bad), bad).toBe(false);
    }
  });
});

describe("PKCE", () => {
  const verifier = "a".repeat(43);
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  it("accepts the S256 pair only", () => {
    expect(pkceMatches(verifier, challenge)).toBe(true);
    // plain: the challenge is the verifier itself.
    expect(pkceMatches(verifier, verifier)).toBe(false);
    expect(pkceMatches("b".repeat(43), challenge)).toBe(false);
    expect(pkceMatches("short", challenge)).toBe(false);
    expect(pkceMatches(verifier + "\u0000", challenge)).toBe(false);
  });
});
