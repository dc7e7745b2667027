"use client";
// An empty chat: starter prompts to click (the agent's own, or general ones), each sent as the first message.
import type { ChatAgent } from "./chat-header";

const DEFAULT_STARTERS = [
  "What time is it?",
  "What can you do in this chat?",
  "Which tools can you use here, and what are their limits?",
];

export function EmptyState({
  agent,
  disabled,
  onStart,
}: {
  agent: ChatAgent;
  disabled: boolean;
  onStart: (text: string) => void;
}) {
  const starters = agent && agent.starters.length > 0 ? agent.starters : DEFAULT_STARTERS;
  return (
    <li>
      <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">
        {agent
          ? (agent.description ?? `Start a chat with ${agent.name}:`)
          : "Start with one of these, or type your own message below:"}
      </p>
      <ul aria-label="Starter prompts" className="grid gap-2 sm:grid-cols-2">
        {starters.map((starter) => (
          <li key={starter}>
            <button
              type="button"
              disabled={disabled}
              onClick={() => onStart(starter)}
              className="w-full rounded-lg border border-slate-300 px-3 py-2 text-left text-sm hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800"
            >
              {starter}
            </button>
          </li>
        ))}
      </ul>
      {agent ? null : (
        <p className="mt-3 text-xs text-slate-600 dark:text-slate-400">
          To try the execution gate, type a line like{" "}
          <code className="font-mono">/tool read {'{"path":"README.md"}'}</code>.
        </p>
      )}
    </li>
  );
}
