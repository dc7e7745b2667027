"use client";
import { visibleText } from "@/lib/exec/visible-text";

function fieldText(value: unknown): string {
  return typeof value === "string" ? visibleText(value) : visibleText(JSON.stringify(value, null, 2) ?? "null");
}

/**
 * A request's arguments as fields (name, then value; strings as they are, anything else as JSON), with the raw JSON
 * one click away. Invisible characters are shown as code points in both, so the fields cannot hide what the raw
 * text holds.
 */
export function ApprovalArgs({ args }: { args: unknown }) {
  const fields = typeof args === "object" && args !== null && !Array.isArray(args) ? Object.entries(args) : null;
  return (
    <div data-testid="approval-args">
      <div className="text-xs font-semibold uppercase text-slate-600 dark:text-slate-400">Arguments</div>
      {fields && fields.length ? (
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded bg-slate-100 p-2 text-xs dark:bg-slate-900">
          {fields.map(([name, value]) => (
            <div key={name} className="contents">
              <dt className="font-mono font-semibold [overflow-wrap:anywhere]">{visibleText(name)}</dt>
              <dd className="whitespace-pre-wrap break-all font-mono">{fieldText(value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <details className="mt-1 text-xs">
        <summary className="cursor-pointer text-sky-700 dark:text-sky-300">Raw JSON</summary>
        <pre
          data-testid="approval-args-raw"
          className="whitespace-pre-wrap break-all rounded bg-slate-100 p-3 font-mono dark:bg-slate-900"
        >
          {visibleText(JSON.stringify(args, null, 2) ?? "null")}
        </pre>
      </details>
    </div>
  );
}
