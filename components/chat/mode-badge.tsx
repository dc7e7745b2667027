import { CodeIcon, ShieldIcon } from "@/components/icons";

export function ModeBadge({ mode, compact = false }: { mode: string; compact?: boolean }) {
  const coding = mode === "coding";
  return (
    <span
      data-testid={compact ? undefined : "mode-badge"}
      title={coding ? "coding mode: file and exec tools may be available" : "chat_safe mode: no file or exec tools"}
      className={`inline-flex shrink-0 items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium ${
        coding
          ? "border-amber-400 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
          : "border-emerald-400 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-200"
      }`}
    >
      {coding ? <CodeIcon className="h-3 w-3" /> : <ShieldIcon className="h-3 w-3" />}
      {compact ? null : <span className="sr-only">mode:</span>}
      {mode}
    </span>
  );
}
