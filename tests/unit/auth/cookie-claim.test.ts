// The session claim read straight from the cookie (lib/auth/cookie-claim.ts): what every guarded route and page now
// reads instead of calling auth(). It must take the cookie Auth.js would take for the request's protocol (the
// __Secure- one for https, X-Forwarded-Proto in any case as new URL() reads it), and nothing it would refuse.
import { beforeAll, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";

const SECRET = "cookie-claim-test-secret-0123456789abcdef";
process.env.AUTH_SECRET = SECRET;
delete process.env.AUTH_URL;
delete process.env.NEXTAUTH_URL;

const SECURE = "__Secure-authjs.session-token";
const PLAIN = "authjs.session-token";
const payload = { uid: "user-1", sv: 3, sid: "session-1" };
const claim = { userId: "user-1", sessionVersion: 3, sessionId: "session-1" };

describe("claimFromCookie", () => {
  let claimFromCookie: typeof import("@/lib/auth/cookie-claim").claimFromCookie;
  let secure: string;
  let plain: string;
  beforeAll(async () => {
    ({ claimFromCookie } = await import("@/lib/auth/cookie-claim"));
    secure = await encode({ token: payload, secret: SECRET, salt: SECURE, maxAge: 60 });
    plain = await encode({ token: payload, secret: SECRET, salt: PLAIN, maxAge: 60 });
  });
  const read = (cookie: string, extra: Record<string, string> = {}, encrypted = true) =>
    claimFromCookie(new Headers({ cookie, ...extra }), encrypted);

  it("takes the __Secure- cookie over https, whatever case the forwarded protocol is in", async () => {
    expect(await read(`${SECURE}=${secure}`, { "x-forwarded-proto": "https" }, false)).toEqual(claim);
    expect(await read(`${SECURE}=${secure}`, { "x-forwarded-proto": "HTTPS" }, false)).toEqual(claim);
    expect(await read(`${SECURE}=${secure}`)).toEqual(claim); // no header: https, as auth() assumes
    expect(await read(`${PLAIN}=${plain}`, { "x-forwarded-proto": "https" })).toBeNull();
  });

  it("takes the plain cookie over http only", async () => {
    expect(await read(`${PLAIN}=${plain}`, { "x-forwarded-proto": "http" })).toEqual(claim);
    expect(await read(`${SECURE}=${secure}`, { "x-forwarded-proto": "http" })).toBeNull();
  });

  it("refuses a token sealed under another cookie's name, a tampered one, an expired one and another secret's", async () => {
    expect(await read(`${SECURE}=${plain}`)).toBeNull();
    const parts = secure.split(".");
    parts[3] = parts[3]!.slice(0, -2) + (parts[3]!.endsWith("AA") ? "BB" : "AA");
    expect(await read(`${SECURE}=${parts.join(".")}`)).toBeNull();
    const expired = await encode({ token: payload, secret: SECRET, salt: SECURE, maxAge: -60 });
    expect(await read(`${SECURE}=${expired}`)).toBeNull();
    const foreign = await encode({ token: payload, secret: `${SECRET}-other`, salt: SECURE, maxAge: 60 });
    expect(await read(`${SECURE}=${foreign}`)).toBeNull();
  });
});
