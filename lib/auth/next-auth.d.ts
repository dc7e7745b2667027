import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  interface Session {
    /** sv: the user's session version when this token was issued (lib/auth/guards.ts compares it). */
    user: { id: string; roles: string[]; sv: number } & DefaultSession["user"];
  }
}
