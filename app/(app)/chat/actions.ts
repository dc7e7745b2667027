"use server";
import { redirect } from "next/navigation";
import { revalidatePath } from "next/cache";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { openNewChatSession } from "@/lib/runs/sessions";
import { changeSessionMode } from "@/lib/sessions/access";
import { isAppError } from "@/lib/errors";
import { ModelIdSchema } from "@/lib/http/schemas";

/** "New chat", or a chat as the agent the picker's button names (formData agentId; the server checks usableBy). */
export async function newChatAction(formData?: FormData) {
  const user = await requireUser();
  try {
    await consumeWriteQuota("session-writes", user.id);
  } catch (error) {
    // A form post, not an API call: the page says why, instead of an error page.
    if (isAppError(error) && error.code === "RATE_LIMITED") redirect("/chat?notice=rate-limited");
    throw error;
  }
  const raw = formData?.get("agentId");
  const agentId = typeof raw === "string" && raw !== "" ? raw : undefined;
  const rawModel = formData?.get("model");
  const model = typeof rawModel === "string" && rawModel !== "" ? rawModel : undefined;
  if (model !== undefined && !ModelIdSchema.safeParse(model).success) redirect("/chat?model=refused");
  let id: string;
  try {
    id = (await openNewChatSession({ user, agentId, model })).id;
  } catch (error) {
    // A model refusal (not configured, or not the agent's) names the field; the page says a fixed sentence.
    if (
      isAppError(error) &&
      (error.code === "BAD_REQUEST" || error.code === "FORBIDDEN") &&
      (error.details as { field?: string } | undefined)?.field === "model"
    )
      redirect("/chat?model=refused");
    // Only the agent's id goes into the URL; the page says a fixed sentence, so no link can put words in the app's mouth.
    if (isAppError(error) && (error.code === "FORBIDDEN" || error.code === "NOT_FOUND"))
      redirect(`/chat?refused=${encodeURIComponent(agentId ?? "")}`);
    throw error;
  }
  redirect(`/chat/${id}`);
}

/** The audited mode switch. Only the signed-in user's grant decides; the model has no way to call this. */
export async function switchModeAction(
  sessionId: string,
  mode: string,
): Promise<{ ok: true; mode: string } | { ok: false; error: string }> {
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
