"use client";
import { useNow } from "./use-now";

/** "1 h 5 min", "4 min", "0:42": whole minutes while one or more is left, then seconds. */
export function formatLeft(ms: number): string {
  if (ms <= 0) return "expired";
  const s = Math.ceil(ms / 1_000);
  if (s >= 3_600) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min`;
  return `0:${String(s).padStart(2, "0")}`;
}

/** How long a pending request has left before it expires (and fails closed as denied). */
export function ExpiryCountdown({ expiresAt, className = "" }: { expiresAt: string; className?: string }) {
  const now = useNow();
  if (now === null) return null;
  const left = new Date(expiresAt).getTime() - now;
  const urgent = left < 60_000;
  return (
    <span
      data-testid="expiry-countdown"
      title={`expires ${new Date(expiresAt).toLocaleString()}`}
      className={`${urgent ? "font-semibold text-red-700 dark:text-red-300" : ""} ${className}`}
    >
      {left <= 0 ? "expired" : `expires in ${formatLeft(left)}`}
    </span>
  );
}
