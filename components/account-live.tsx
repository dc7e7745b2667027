"use client";
// Keeps the signed-in person's open pages in step with their account without a reload: when an admin changes
// their roles, teams or mode grants, the server components (nav, mode choices) are rendered again and cached
// data is re-read; when their session ends (deactivated, password reset, a role taken away) the tab goes to the
// sign-in page at once instead of failing on the next click.
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef } from "react";
import { useLiveEvents } from "@/components/live-events";
import { ownSignOutTarget } from "@/components/own-sign-out";
import { refetchAfterWrite } from "@/components/refetch-after-write";

export function AccountLive() {
  const router = useRouter();
  const client = useQueryClient();
  const checking = useRef(false);
  const refresh = () => {
    router.refresh();
    void refetchAfterWrite(client);
  };
  // The stream closes when the session is revoked (and also on a network blip): ask whether we are still signed in.
  const checkSession = async () => {
    if (checking.current) return;
    checking.current = true;
    try {
      const res = await fetch("/api/me", { cache: "no-store" });
      if (res.status === 401) {
        const next = `${window.location.pathname}${window.location.search}`;
        client.clear(); // nothing of the ended session stays in this tab
        router.replace(ownSignOutTarget() ?? `/login?${new URLSearchParams({ next, ended: "1" })}`);
      }
    } catch {
      // offline: the event source retries, and this check runs again on its next error
    } finally {
      checking.current = false;
    }
  };
  useLiveEvents({ onEvent: (type) => type === "account.changed" && refresh(), onError: () => void checkSession() });
  return null;
}
