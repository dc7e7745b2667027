"use client";
// An owner's tab tells them about requests they can decide, also when they are looking elsewhere: the count in the
// tab title and as a badge on the favicon, and a browser notification (once per request, only while the tab is
// hidden and only when the owner allowed notifications) whose click opens that request. Requests the owner cannot
// decide (their own, under four eyes) count for nothing here.
import { useEffect, useRef, useSyncExternalStore } from "react";
import { useRouter } from "next/navigation";
import { usePendingApprovals, type Approval } from "./use-approvals";

const PREFIX = /^\(\d+\) /;

function applyTitle(count: number) {
  const base = document.title.replace(PREFIX, "");
  const want = count > 0 ? `(${count}) ${base}` : base;
  if (document.title !== want) document.title = want;
}

function iconLink(): HTMLLinkElement {
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"][data-toolgate-badge]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    link.dataset.toolgateBadge = "";
    document.head.appendChild(link);
  }
  return link;
}

/** The favicon with the count on a red badge (a drawn PNG), or the plain icon when nothing waits. */
function applyFavicon(count: number) {
  const link = iconLink();
  if (count === 0) {
    link.href = "/icon.svg";
    link.type = "image/svg+xml";
    return;
  }
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  const draw = (icon?: HTMLImageElement) => {
    ctx.clearRect(0, 0, 64, 64);
    if (icon) ctx.drawImage(icon, 0, 0, 64, 64);
    ctx.fillStyle = "#b91c1c";
    ctx.beginPath();
    ctx.arc(44, 20, 20, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = "#fff";
    ctx.font = "bold 26px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(count > 9 ? "9+" : String(count), 44, 21);
    link.type = "image/png";
    link.href = canvas.toDataURL("image/png");
    link.dataset.count = String(count);
  };
  const icon = new Image();
  icon.onload = () => draw(icon);
  icon.onerror = () => draw();
  icon.src = "/icon.svg";
}

function notify(a: Approval, open: (href: string) => void) {
  const what = a.command ?? a.toolName;
  const n = new Notification(`Approval needed: ${a.toolName}`, {
    body: `${a.requester.email ?? "A member"}: ${what.length > 120 ? `${what.slice(0, 119)}…` : what}`,
    tag: `toolgate-approval-${a.id}`,
  });
  n.onclick = () => {
    window.focus();
    open(`/approvals?open=${encodeURIComponent(a.id)}`);
    n.close();
  };
}

export function PendingAttention({ userId, selfDecision }: { userId: string; selfDecision: "deny" | "allow" }) {
  const pending = usePendingApprovals(true);
  const decidable = (pending ?? []).filter((a) => selfDecision === "allow" || a.requester.id !== userId);
  const count = decidable.length;
  // Requests already known when the tab loaded, or already announced: never announced (again).
  const known = useRef<Set<string> | null>(null);
  const router = useRouter();

  useEffect(() => {
    applyTitle(count);
    applyFavicon(count);
    // Next.js sets the title again on navigation (or replaces the <title> element): put the count back whenever the
    // head changes. applyTitle writes only when the title differs, so its own write does not loop.
    const observer = new MutationObserver(() => applyTitle(count));
    observer.observe(document.head, { childList: true, characterData: true, subtree: true });
    return () => observer.disconnect();
  }, [count]);

  const ids = decidable.map((a) => a.id).join(",");
  useEffect(() => {
    if (!pending) return;
    if (known.current === null) {
      known.current = new Set(decidable.map((a) => a.id));
      return;
    }
    for (const a of decidable) {
      if (known.current.has(a.id)) continue;
      known.current.add(a.id);
      if (
        typeof Notification !== "undefined" &&
        Notification.permission === "granted" &&
        document.visibilityState === "hidden"
      )
        notify(a, (href) => router.push(href));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the ids: a refetch with the same requests changes nothing
  }, [ids, pending === undefined]);
  return null;
}

// The permission as an external store: it changes only when the owner answers the browser's question.
const permissionListeners = new Set<() => void>();
const subscribePermission = (listener: () => void) => {
  permissionListeners.add(listener);
  return () => void permissionListeners.delete(listener);
};
const readPermission = (): NotificationPermission | "unsupported" =>
  typeof Notification === "undefined" ? "unsupported" : Notification.permission;

/** Asks for permission to notify (browsers ask only after a click). */
export function NotificationToggle() {
  const permission = useSyncExternalStore(subscribePermission, readPermission, () => null);
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      onClick={() => Notification.requestPermission().then(() => permissionListeners.forEach((l) => l()))}
      className="rounded-md border border-slate-300 px-2 py-0.5 text-xs font-normal dark:border-slate-700"
    >
      Notify me of new requests
    </button>
  );
}
