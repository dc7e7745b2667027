import "server-only";
// next-auth (Auth.js v5): e-mail + password credentials, optional GitHub / generic OIDC, JWT sessions.
// The token carries the user id, roles for display, the user's session version at sign-in and the id of the
// signed-in session made then (lib/db/auth-sessions.ts); every request re-reads the user and refuses a token whose
// version is old or whose session row is revoked or gone (lib/auth/guards.ts). Sign-in is
// throttled (lib/auth/throttle.ts) and does the same bcrypt work for unknown accounts.
import NextAuth, { CredentialsSignin, type NextAuthConfig } from "next-auth";
import { headers } from "next/headers";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import type { Provider } from "next-auth/providers";
import { z } from "zod";
import { loadConfig } from "@/lib/config";
import { isAppError } from "@/lib/errors";
import { bumpSessionVersion, findUserByEmail, getUserForSession, linkExternalAccount } from "@/lib/db/users";
import { createAuthSession, revokeAuthSessionOfUser } from "@/lib/db/auth-sessions";
import { verifyPasswordConstantWork } from "./password";
import { looksLikeRecoveryCode, signInWithRecoveryCode } from "./recovery-codes";
import { beginRecoveryAttempt, beginSignInAttempt, clientAddress, isSignInExempt, signInSucceeded } from "./throttle";

/** Thrown by authorize when the account is throttled; the sign-in form tells the person to wait. */
export class ThrottledSignIn extends CredentialsSignin {
  code = "rate_limited";
}

/** What the device list shows of the browser that signs in: its User-Agent (trimmed) and address, if known. */
async function signInDevice(): Promise<{ userAgent: string | null; ip: string | null }> {
  try {
    const h = await headers();
    // Control characters out, and short: display only, never parsed.
    const userAgent = (h.get("user-agent") ?? "")
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .trim()
      .slice(0, 200);
    const ip = clientAddress(h);
    return { userAgent: userAgent || null, ip: ip === "unknown" ? null : ip.slice(0, 64) };
  } catch {
    return { userAgent: null, ip: null }; // outside a request: nothing to show
  }
}

const CredentialsInput = z.object({ email: z.string().trim().email(), password: z.string().min(1).max(1024) });

function providers(): Provider[] {
  const config = loadConfig();
  const list: Provider[] = [
    Credentials({
      credentials: { email: { label: "E-mail" }, password: { label: "Password", type: "password" } },
      async authorize(raw, request) {
        const parsed = CredentialsInput.safeParse(raw);
        if (!parsed.success) return null;
        const attempt = { email: parsed.data.email, address: clientAddress(request?.headers) };
        // An admin on a trusted network (SIGNIN_TRUSTED_NETWORKS) is never throttled: the way back in when
        // someone guesses at the admin account from outside.
        if (looksLikeRecoveryCode(parsed.data.password)) {
          // An admin's one-time recovery code: no sign-in limit applies, only its own per address.
          try {
            await beginRecoveryAttempt(attempt.address);
          } catch (error) {
            if (isAppError(error) && error.code === "RATE_LIMITED") throw new ThrottledSignIn(error.message);
            throw error;
          }
          return signInWithRecoveryCode({ email: attempt.email, code: parsed.data.password });
        }
        const exempt = await isSignInExempt(attempt);
        try {
          if (!exempt) await beginSignInAttempt(attempt);
        } catch (error) {
          if (isAppError(error) && error.code === "RATE_LIMITED") throw new ThrottledSignIn(error.message);
          throw error;
        }
        const user = await findUserByEmail({ email: parsed.data.email });
        const ok = await verifyPasswordConstantWork(parsed.data.password, user?.passwordHash);
        if (!user || !ok || user.disabledAt) return null;
        if (!exempt) await signInSucceeded(attempt);
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ];
  if (config.AUTH_GITHUB_ID && config.AUTH_GITHUB_SECRET) {
    list.push(GitHub({ clientId: config.AUTH_GITHUB_ID, clientSecret: config.AUTH_GITHUB_SECRET }));
  }
  if (config.AUTH_OIDC_ISSUER && config.AUTH_OIDC_ID && config.AUTH_OIDC_SECRET) {
    list.push({
      id: "oidc",
      name: config.AUTH_OIDC_NAME,
      type: "oidc",
      issuer: config.AUTH_OIDC_ISSUER,
      clientId: config.AUTH_OIDC_ID,
      clientSecret: config.AUTH_OIDC_SECRET,
    });
  }
  return list;
}

export function enabledProviders(): Array<{ id: string; name: string }> {
  const config = loadConfig();
  const list: Array<{ id: string; name: string }> = [];
  if (config.AUTH_GITHUB_ID && config.AUTH_GITHUB_SECRET) list.push({ id: "github", name: "GitHub" });
  if (config.AUTH_OIDC_ISSUER && config.AUTH_OIDC_ID && config.AUTH_OIDC_SECRET)
    list.push({ id: "oidc", name: config.AUTH_OIDC_NAME });
  return list;
}

const authConfig: NextAuthConfig = {
  trustHost: true,
  secret: loadConfig().AUTH_SECRET,
  // Short-lived cookies, re-issued while in use (sliding renewal); revocation is the session version.
  session: { strategy: "jwt", maxAge: loadConfig().SESSION_MAX_AGE_SECONDS, updateAge: 0 },
  pages: { signIn: "/login" },
  providers: providers(),
  callbacks: {
    async jwt({ token, user, account, profile }) {
      if (account && account.provider !== "credentials") {
        const email = (profile?.email ?? user?.email ?? "").toLowerCase();
        if (!email) throw new Error("the identity provider gave no e-mail address");
        token.uid = await linkExternalAccount({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          email,
          name: profile?.name ?? user?.name ?? undefined,
        });
      } else if (user?.id) {
        token.uid = user.id;
      }
      if (user && typeof token.uid === "string") {
        const fresh = await getUserForSession({ userId: token.uid });
        if (!fresh || fresh.disabled) throw new Error("this account is deactivated");
        token.roles = fresh.user.roles;
        token.sv = fresh.sessionVersion;
        // A new signed-in session (a "device") per sign-in; a copied cookie shares it, and ends with it.
        token.sid = (await createAuthSession({ userId: token.uid, ...(await signInDevice()) })).id;
      }
      return token;
    },
    session({ session, token }) {
      if (typeof token.uid === "string") {
        session.user.id = token.uid;
        (session.user as { roles?: unknown }).roles = Array.isArray(token.roles) ? token.roles : [];
        session.user.sv = typeof token.sv === "number" ? token.sv : -1;
        session.user.sid = typeof token.sid === "string" ? token.sid : null;
      }
      return session;
    },
  },
  events: {
    // Signing out ends this signed-in session (copied cookies of it included); the user's other devices stay signed
    // in (Settings signs them out). A token from before sessions had rows ends all of the user's, as it used to.
    async signOut(message) {
      const token = "token" in message ? message.token : undefined;
      const uid = token?.uid;
      if (typeof uid !== "string") return;
      if (typeof token?.sid === "string")
        await revokeAuthSessionOfUser({ userId: uid, sessionId: token.sid }).catch(() => undefined);
      else await bumpSessionVersion({ userId: uid }).catch(() => undefined);
    },
  },
};

export const { handlers, auth, signIn, signOut } = NextAuth(authConfig);
