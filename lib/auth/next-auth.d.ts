import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  interface Session {
    /** sv: the user's session version when this token was issued (lib/auth/guards.ts compares it). */
    /** sid: the signed-in session (lib/db/auth-sessions.ts) this token belongs to; null for a token from before them. */
    user: { id: string; roles: string[]; sv: number; sid: string | null } & DefaultSession["user"];
  }
}
