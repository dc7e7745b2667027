"use client";
// Mode overrides per tool: tighten only. A mode the tool does not declare cannot be added; the reason is shown.
import { useState } from "react";
import { TOOL_MODES, type PolicyDocument, type ToolMeta, type ToolMode } from "@/lib/policy";

export function ModeOverrides({
  document,
  tools,
  onChange,
}: {
  document: PolicyDocument;
  tools: ToolMeta[];
  onChange: (next: PolicyDocument) => void;
}) {
  const [refusal, setRefusal] = useState<string>();
  const toggle = (tool: ToolMeta, mode: ToolMode, on: boolean) => {
    const declared = tool.allowedModes ?? [];
    if (on && !declared.includes(mode)) {
      setRefusal(
        `Refused: ${tool.name} does not declare ${mode} (it declares ${declared.join(", ") || "no mode"}); an override can only tighten.`,
      );
      return;
    }
    setRefusal(undefined);
    const next = structuredClone(document);
    const current = next.modeOverrides[tool.name] ?? [...declared];
    const modes = on ? [...new Set([...current, mode])] : current.filter((m) => m !== mode);
    // An override equal to the declaration is no override: keep the document minimal.
    if (TOOL_MODES.every((m) => modes.includes(m) === declared.includes(m))) delete next.modeOverrides[tool.name];
    else next.modeOverrides[tool.name] = TOOL_MODES.filter((m) => modes.includes(m));
    onChange(next);
  };
  return (
    <section
      aria-labelledby="mode-overrides"
      className="space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
    >
      <h3 id="mode-overrides" className="text-sm font-semibold">
        Mode overrides (tighten only)
      </h3>
      {refusal && (
        <p role="alert" className="rounded bg-rose-50 p-2 text-xs text-rose-800 dark:bg-rose-950 dark:text-rose-200">
          ✕ {refusal}
        </p>
      )}
      <table className="text-xs">
        <thead>
          <tr>
            <th scope="col" className="pr-4 text-left">
              Tool
            </th>
            {TOOL_MODES.map((m) => (
              <th key={m} scope="col" className="px-2 text-left">
                {m}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => {
            const declared = tool.allowedModes ?? [];
            const effective = document.modeOverrides[tool.name] ?? declared;
            return (
              <tr key={tool.name}>
                <th scope="row" className="pr-4 text-left font-mono font-normal">
                  {tool.name}
                  {document.modeOverrides[tool.name] && (
                    <span className="ml-1 text-violet-700 dark:text-violet-300">(overridden)</span>
                  )}
                </th>
                {TOOL_MODES.map((mode) => (
                  <td key={mode} className="px-2">
                    <input
                      type="checkbox"
                      aria-label={`${tool.name} in ${mode}${declared.includes(mode) ? "" : " (not declared by the tool)"}`}
                      className={declared.includes(mode) ? undefined : "opacity-40"}
                      checked={effective.includes(mode) && declared.includes(mode)}
                      onChange={(e) => toggle(tool, mode, e.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
