"use client";
import { ErrorPanel } from "@/components/error-panel";

// A failed page outside the signed-in shell (sign-in, consent, decide links) or a failed shell itself.
export default function RootError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorPanel error={error} reset={reset} fullHeight />;
}
