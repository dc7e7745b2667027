"use client";
// The cells a change flips in each of several contexts (lib/admin/matrix-contexts.ts picks them), from the same
// POST /api/policy/effective the matrix uses. With `before` the flips are before → after (an import into the
// draft); without, saved → after (the draft against the saved version, which the route diffs itself).
import { useQueries } from "@tanstack/react-query";
import { diffMatrices, type CellFlip } from "@/lib/admin/matrix";
import type { LabeledContext } from "@/lib/admin/matrix-contexts";
import { api } from "./api";
import type { EffectiveResponse } from "./types";

export type ContextFlips = { label: string; context: LabeledContext["context"]; flips?: CellFlip[]; error?: string };

const effective = (context: LabeledContext["context"], document: unknown) =>
  api<EffectiveResponse>("/api/policy/effective", { body: { context, document } });

export function useContextFlips(
  contexts: readonly LabeledContext[],
  after: unknown,
  before?: unknown,
): { rows: ContextFlips[]; pending: boolean } {
  const results = useQueries({
    queries: contexts.map(({ context }) => ({
      queryKey: ["policy-context-flips", context, after ?? null, before ?? null],
      enabled: after !== undefined,
      queryFn: async (): Promise<CellFlip[]> => {
        if (before === undefined) return (await effective(context, after)).flips ?? [];
        const [a, b] = await Promise.all([effective(context, before), effective(context, after)]);
        return diffMatrices(a.matrix, b.matrix);
      },
    })),
  });
  return {
    rows: contexts.map(({ label, context }, i) => {
      const result = results[i];
      return {
        label,
        context,
        ...(result?.data ? { flips: result.data } : {}),
        ...(result?.error ? { error: result.error.message } : {}),
      };
    }),
    pending: results.some((r) => r.isPending && after !== undefined),
  };
}
