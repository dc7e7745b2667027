"use client";
import { useState } from "react";
import { useBulkDeny } from "./use-approvals";

/**
 * Deny many pending requests at once (a flood from a misbehaving agent). Only deny: an allow runs something, so
 * each one is opened and read first. Asks once more before denying, and says which were no longer pending.
 */
export function BulkDenyBar({
  ids,
  shown,
  onChoose,
}: {
  ids: string[];
  shown: string[];
  onChoose: (ids: string[]) => void;
}) {
  const bulk = useBulkDeny();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState("");
  const all = shown.length > 0 && ids.length === shown.length;
  const n = ids.length;
  return (
    <div data-testid="bulk-deny" className="mb-2 space-y-1 text-xs">
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            checked={all}
            disabled={shown.length === 0}
            onChange={(e) => onChoose(e.target.checked ? shown : [])}
            className="size-4"
          />
          Choose all shown
        </label>
        {n > 0 && !confirming ? (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            className="rounded-md border border-red-700 px-2 py-1 font-medium text-red-800 dark:text-red-300"
          >
            Deny chosen ({n})…
          </button>
        ) : null}
      </div>
      {confirming && n > 0 ? (
        <div role="group" aria-label="Confirm bulk deny" className="space-y-1 rounded-md border border-red-700 p-2">
          <label className="block">
            Reason for all {n} (optional, shown to each requester)
            <input
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              maxLength={2000}
              className="mt-1 w-full rounded-md border border-slate-400 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-900"
            />
          </label>
          <div className="flex gap-2">
            <button
              type="button"
              disabled={bulk.isPending}
              onClick={() =>
                bulk.mutate(
                  { ids, reason },
                  {
                    onSuccess: () => {
                      setConfirming(false);
                      setReason("");
                      onChoose([]);
                    },
                  },
                )
              }
              className="rounded-md bg-red-700 px-2 py-1 font-medium text-white"
            >
              Deny {n} request{n === 1 ? "" : "s"}
            </button>
            <button
              type="button"
              onClick={() => setConfirming(false)}
              className="rounded-md border border-slate-400 px-2 py-1"
            >
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      <p aria-live="polite" data-testid="bulk-deny-result">
        {bulk.data
          ? `Denied ${bulk.data.denied.length}.${bulk.data.skipped.length ? ` ${bulk.data.skipped.length} no longer pending.` : ""}`
          : ""}
      </p>
      {bulk.error ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {bulk.error.message}
        </p>
      ) : null}
    </div>
  );
}
