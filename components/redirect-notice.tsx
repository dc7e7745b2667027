"use client";
// Why a page sent you here: a member who opens /admin (or an owner page) lands on the chat with a reason
// instead of a silent redirect.
import { useSearchParams } from "next/navigation";

const NOTICES: Record<string, string> = {
  "admin-only":
    "The admin pages are for admins. Your account does not have the admin role, so you were brought to the chat instead; ask an admin if you need access.",
  "owner-only":
    "Approvals, grants and session reviews are for owners. Your account does not have the owner role, so you were brought to the chat instead.",
  "rate-limited": "Too many new chats in the last minute: no chat was created. Wait a minute and try again.",
};

export function RedirectNotice() {
  const notice = NOTICES[useSearchParams().get("notice") ?? ""];
  if (!notice) return null;
  return (
    <p
      role="status"
      data-testid="redirect-notice"
      className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-50"
    >
      {notice}
    </p>
  );
}
