"use client";
import { useState } from "react";
import { useConnectedApps, useRevokeAll, useRevokeGrant, type GrantView } from "./use-connected-apps";

const button = "rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700";

function when(iso: string | null, none: string): string {
  return iso ? new Date(iso).toLocaleString() : none;
}

function GrantRow({ grant }: { grant: GrantView }) {
  const revoke = useRevokeGrant();
  const [confirming, setConfirming] = useState(false);
  return (
    <li
      data-testid="grant-row"
      className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-100 py-2 dark:border-slate-800"
    >
      <div className="min-w-0">
        <span className="break-words font-medium">{grant.clientName}</span>
        <div className="text-xs text-slate-600 dark:text-slate-400">
          {grant.mode}
          {grant.agentId ? ` · agent ${grant.agentId}` : ""} · connected {when(grant.createdAt, "?")} · last token{" "}
          {when(grant.lastTokenAt, "never")}
        </div>
      </div>
      <div>
        {confirming ? (
          <span className="inline-flex gap-2">
            <button
              type="button"
              onClick={() => revoke.mutate(grant.id)}
              disabled={revoke.isPending}
              className="rounded-md bg-red-700 px-2 py-1 text-sm font-medium text-white"
            >
              Revoke
            </button>
            <button type="button" onClick={() => setConfirming(false)} className={button}>
              Keep
            </button>
          </span>
        ) : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            aria-label={`Revoke ${grant.clientName}`}
            className={button}
          >
            Revoke…
          </button>
        )}
        {revoke.error ? (
          <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
            {revoke.error.message}
          </p>
        ) : null}
      </div>
    </li>
  );
}

function RevokeEverything() {
  const revokeAll = useRevokeAll();
  const [confirming, setConfirming] = useState(false);
  const done = revokeAll.data;
  return (
    <div className="space-y-2 rounded-md border border-red-200 p-3 dark:border-red-900">
      <p className="text-sm">
        Ends every access token and every connected app of yours at once (a lost laptop, a leaked token). Your browser
        session stays.
      </p>
      {confirming ? (
        <span className="inline-flex flex-wrap gap-2">
          <button
            type="button"
            disabled={revokeAll.isPending}
            onClick={() => revokeAll.mutate(undefined, { onSettled: () => setConfirming(false) })}
            className="rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white"
          >
            Yes, revoke everything
          </button>
          <button type="button" onClick={() => setConfirming(false)} className={button}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          onClick={() => setConfirming(true)}
          className="rounded-md border border-red-300 px-3 py-1.5 text-sm font-medium text-red-800 dark:border-red-800 dark:text-red-300"
        >
          Revoke everything…
        </button>
      )}
      {done ? (
        <p role="status" className="text-sm">
          Revoked {done.accessTokens} access token{done.accessTokens === 1 ? "" : "s"} and {done.oauthGrants} connected
          app{done.oauthGrants === 1 ? "" : "s"}.
        </p>
      ) : null}
      {revokeAll.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {revokeAll.error.message}
        </p>
      ) : null}
    </div>
  );
}

/** The user's OAuth grants (apps connected to /mcp) and the one button that ends every credential. */
export function ConnectedApps() {
  const grants = useConnectedApps();
  return (
    <section aria-labelledby="connected-apps" className="space-y-3">
      <h2 id="connected-apps" className="text-base font-semibold">
        Connected apps (OAuth)
      </h2>
      {grants.isPending ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Loading connected apps…</p>
      ) : grants.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load the connected apps: {grants.error.message}
        </p>
      ) : grants.data.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No connected apps.</p>
      ) : (
        <ul>
          {grants.data.map((grant) => (
            <GrantRow key={grant.id} grant={grant} />
          ))}
        </ul>
      )}
      <RevokeEverything />
    </section>
  );
}
