"use client";
import { ErrorPanel } from "@/components/error-panel";

// A failed page inside the signed-in shell: the header and nav stay, only the page area shows the error.
export default function AppError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorPanel error={error} reset={reset} />;
}
