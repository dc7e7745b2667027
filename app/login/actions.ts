"use server";
import { AuthError } from "next-auth";
import { signIn, signOut, ThrottledSignIn } from "@/lib/auth/auth";
import { safeRedirectPath } from "@/lib/http/request-guard";

/** `email` comes back with an error so the form keeps what was typed (React resets a form after its action). */
export type LoginState = { error?: string; email?: string };

export async function loginAction(_prev: LoginState, formData: FormData): Promise<LoginState> {
  const next = String(formData.get("next") ?? "/chat");
  const email = String(formData.get("email") ?? "").slice(0, 320);
  try {
    await signIn("credentials", {
      email: formData.get("email"),
      password: formData.get("password"),
      // Only same-site paths: an open redirect would let a link send people elsewhere after sign-in.
      redirectTo: safeRedirectPath(next),
    });
    return {};
  } catch (error) {
    if (
      error instanceof ThrottledSignIn ||
      (error instanceof AuthError && (error as { code?: string }).code === "rate_limited")
    )
      return { error: "Too many failed sign-ins for this account. Wait 15 minutes and try again.", email };
    if (error instanceof AuthError) return { error: "Wrong e-mail or password. Check both and try again.", email };
    throw error; // the redirect after a successful sign-in is thrown too
  }
}

export async function providerLoginAction(formData: FormData) {
  await signIn(String(formData.get("provider")), { redirectTo: "/chat" });
}

export async function logoutAction() {
  await signOut({ redirectTo: "/login" });
}
