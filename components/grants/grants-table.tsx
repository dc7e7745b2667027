"use client";
import { useState } from "react";
import type { GrantView } from "@/lib/approvals/grant-choice";
import { visibleText } from "@/lib/exec/visible-text";
import { useGrants, useRevokeGrant } from "./use-grants";

const SCOPE_LABEL: Record<GrantView["scope"], string> = {
  user: "one user",
  team: "team",
  agent: "agent",
  everyone: "everyone",
};

function scopeText(g: GrantView): string {
  if (g.scope === "everyone") return "everyone";
  return `${SCOPE_LABEL[g.scope]}: ${g.scopeLabel ?? g.scopeId ?? "?"}`;
}

function when(d: Date | null): string {
  return d ? d.toLocaleString() : "never";
}

// On a phone each grant is a card (the table's cells stack, each with its own label) instead of a wide table.
const cell = "px-3 py-2 max-sm:block max-sm:py-0.5";

function PhoneLabel({ children }: { children: string }) {
  return (
    <span className="mr-1 text-xs font-medium uppercase text-slate-600 dark:text-slate-400 sm:hidden">{children}:</span>
  );
}

function GrantRow({ grant }: { grant: GrantView }) {
  const revoke = useRevokeGrant();
  const [confirming, setConfirming] = useState(false);
  return (
    <tr
      className={`border-b border-slate-100 align-top dark:border-slate-800 max-sm:block max-sm:py-2 ${grant.expired ? "text-slate-600 dark:text-slate-400" : ""}`}
      data-testid="grant-row"
    >
      <td className={cell}>
        <code className="break-all rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800">
          {visibleText(grant.rule)}
        </code>
        <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {grant.kind === "exec" ? "command rule" : grant.kind === "domain" ? "network domain" : "tool"}
        </div>
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>For</PhoneLabel>
        {scopeText(grant)}
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Granted by</PhoneLabel>
        {grant.createdBy ?? "?"}
        <div className="text-xs text-slate-600 dark:text-slate-400">{when(grant.createdAt)}</div>
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Expires</PhoneLabel>
        {grant.expired ? (
          <span>expired {when(grant.expiresAt)}</span>
        ) : grant.expiresAt ? (
          when(grant.expiresAt)
        ) : (
          "no expiry"
        )}
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Used</PhoneLabel>
        {grant.useCount} {grant.useCount === 1 ? "use" : "uses"}
        <div className="text-xs text-slate-600 dark:text-slate-400">last: {when(grant.lastUsedAt)}</div>
      </td>
      <td className={`${cell} text-right max-sm:pt-2 max-sm:text-left`}>
        {confirming ? (
          <span className="inline-flex gap-2">
            <button
              type="button"
              onClick={() => revoke.mutate(grant.id)}
              disabled={revoke.isPending}
              className="rounded-md bg-red-700 px-2 py-1 text-sm font-medium text-white"
            >
              Revoke {grant.rule}
            </button>
            <button
              type="button"
              onClick={() => setConfirming(false)}
              className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700"
            >
              Keep
            </button>
          </span>
        ) : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700"
            aria-label={`Revoke the grant ${grant.rule} for ${scopeText(grant)}`}
          >
            Revoke…
          </button>
        )}
        {revoke.error ? (
          <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
            {revoke.error.message}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

/** Every allow-always grant, who it is for, who made it, when it ends and how often it was used; revocable. */
export function GrantsTable() {
  const grants = useGrants();
  if (grants.isPending) return <p className="p-4 text-sm text-slate-600 dark:text-slate-400">Loading grants…</p>;
  if (grants.error)
    return (
      <p role="alert" className="p-4 text-sm text-red-700 dark:text-red-400">
        Could not load the grants: {grants.error.message}
      </p>
    );
  if (grants.data.length === 0) {
    return (
      <p className="p-4 text-sm text-slate-600 dark:text-slate-400">
        No grants yet. Choosing “Allow always” in the approvals inbox stores one, for the scope you pick.
      </p>
    );
  }
  return (
    <div className="p-2 sm:overflow-x-auto">
      <table className="w-full text-left max-sm:block sm:min-w-[44rem]">
        <caption className="sr-only">Allow-always grants</caption>
        <thead className="sticky top-0 bg-white text-xs uppercase text-slate-600 dark:text-slate-400 max-sm:hidden dark:bg-slate-950">
          <tr>
            <th scope="col" className="px-3 py-2">
              Allows
            </th>
            <th scope="col" className="px-3 py-2">
              For
            </th>
            <th scope="col" className="px-3 py-2">
              Granted by
            </th>
            <th scope="col" className="px-3 py-2">
              Expires
            </th>
            <th scope="col" className="px-3 py-2">
              Used
            </th>
            <th scope="col" className="px-3 py-2 text-right">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="max-sm:block">
          {grants.data.map((g) => (
            <GrantRow key={g.id} grant={g} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
