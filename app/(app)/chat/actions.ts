"use server";
import { redirect } from "next/navigation";
import { revalidatePath } from "next/cache";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { changeSessionMode, openNewChatSession } from "@/lib/runs/sessions";
import { isAppError } from "@/lib/errors";

export async function newChatAction() {
  const user = await requireUser();
  try {
    await consumeWriteQuota("session-writes", user.id);
  } catch (error) {
    // A form post, not an API call: the page says why, instead of an error page.
    if (isAppError(error) && error.code === "RATE_LIMITED") redirect("/chat?notice=rate-limited");
    throw error;
  }
  const session = await openNewChatSession({ user });
  redirect(`/chat/${session.id}`);
}

/** The audited mode switch. Only the signed-in user's grant decides; the model has no way to call this. */
export async function switchModeAction(sessionId: string, mode: string): Promise<{ ok: true; mode: string } | { ok: false; error: string }> {
  try {
    const user = await requireUser();
    await consumeWriteQuota("session-writes", user.id);
    const result = await changeSessionMode({ user, sessionId, mode });
    revalidatePath(`/chat/${sessionId}`);
    return { ok: true, mode: result.mode };
  } catch (error) {
    if (isAppError(error)) return { ok: false, error: error.message };
    throw error;
  }
}
