import "server-only";
// next-auth (Auth.js v5): e-mail + password credentials, optional GitHub / generic OIDC, JWT sessions.
// The token carries the user id and roles for display; anything that grants power re-reads the roles
// from the database (lib/auth/guards.ts).
import NextAuth, { type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import type { Provider } from "next-auth/providers";
import { z } from "zod";
import { loadConfig } from "@/lib/config";
import { findUserByEmail, getUserWithRoles, linkExternalAccount } from "@/lib/db/users";
import { verifyPassword } from "./password";

const CredentialsInput = z.object({ email: z.string().trim().email(), password: z.string().min(1).max(1024) });

function providers(): Provider[] {
  const config = loadConfig();
  const list: Provider[] = [
    Credentials({
      credentials: { email: { label: "E-mail" }, password: { label: "Password", type: "password" } },
      async authorize(raw) {
        const parsed = CredentialsInput.safeParse(raw);
        if (!parsed.success) return null;
        const user = await findUserByEmail({ email: parsed.data.email });
        if (!user?.passwordHash || !(await verifyPassword(parsed.data.password, user.passwordHash))) return null;
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
  if (config.AUTH_OIDC_ISSUER && config.AUTH_OIDC_ID && config.AUTH_OIDC_SECRET) list.push({ id: "oidc", name: config.AUTH_OIDC_NAME });
  return list;
}

const authConfig: NextAuthConfig = {
  trustHost: true,
  secret: loadConfig().AUTH_SECRET,
  session: { strategy: "jwt" },
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
        const fresh = await getUserWithRoles({ userId: token.uid });
        token.roles = fresh?.roles ?? [];
      }
      return token;
    },
    session({ session, token }) {
      if (typeof token.uid === "string") {
        session.user.id = token.uid;
        (session.user as { roles?: unknown }).roles = Array.isArray(token.roles) ? token.roles : [];
      }
      return session;
    },
  },
};

export const { handlers, auth, signIn, signOut } = NextAuth(authConfig);
