"use client";
// The ask_user tool as a widget: the agent's question with its choices as buttons. A choice is sent as the
// person's reply (the server checks it was offered and the question is still open); without choices the person
// answers in the composer.

export type AskUserOutput = { asked: true; question: string; choices: string[] };

export function isAskUserOutput(output: unknown): output is AskUserOutput {
  const o = output as Partial<AskUserOutput> | null | undefined;
  return (
    !!o &&
    o.asked === true &&
    typeof o.question === "string" &&
    Array.isArray(o.choices) &&
    o.choices.every((c) => typeof c === "string")
  );
}

/** `onAnswer` only while the question is open (no reply after it, no turn running). */
export function AskUserCard({ output, onAnswer }: { output: AskUserOutput; onAnswer?: (choice: string) => void }) {
  return (
    <div
      role="group"
      aria-label="Question from the agent"
      data-testid="ask-user"
      className="my-2 rounded-lg border-2 border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
    >
      <p className="font-medium whitespace-pre-wrap [overflow-wrap:anywhere]">{output.question}</p>
      {output.choices.length > 0 ? (
        <div className="mt-2 flex flex-wrap gap-2">
          {output.choices.map((choice) => (
            <button
              key={choice}
              type="button"
              disabled={!onAnswer}
              onClick={() => onAnswer?.(choice)}
              className="min-h-[36px] rounded-md border border-sky-400 bg-white px-3 py-1 text-left text-sm font-medium hover:bg-sky-100 disabled:opacity-60 dark:border-sky-700 dark:bg-slate-900 dark:hover:bg-sky-900"
            >
              {choice}
            </button>
          ))}
        </div>
      ) : (
        <p className="mt-1 text-xs opacity-80">{onAnswer ? "Answer in the message box below." : null}</p>
      )}
    </div>
  );
}
