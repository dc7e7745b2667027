import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { isAppError } from "@/lib/errors";
import { reviewSession } from "@/lib/runs/sessions";
import { ReadOnlyTranscript } from "@/components/chat/read-only-transcript";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Conversation review" };

/** The conversation behind a request, for owners and admins: read-only, and each reading is audited. */
export default async function ReviewSessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await getCurrentUser();
  if (!user || !(hasRole(user, "owner") || hasRole(user, "admin"))) redirect("/chat?notice=owner-only");
  let session;
  try {
    session = await reviewSession({ user, sessionId: id });
  } catch (error) {
    if (isAppError(error) && error.code === "NOT_FOUND") notFound();
    throw error;
  }
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">
        {session.title}{" "}
        <span className="text-sm font-normal text-slate-600 dark:text-slate-400">
          — {session.ownerEmail ?? "unknown owner"}, {session.mode}, read-only (this view is audited)
        </span>
      </h1>
      <ReadOnlyTranscript messages={session.uiMessages} />
    </main>
  );
}
