"use client";
import { useState, type FormEvent } from "react";
import type { TokenView } from "@/lib/auth/token-views";
import { useCreateToken, useRevokeToken, useTokens } from "./use-tokens";

const input =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";
const cell = "px-3 py-2 max-sm:block max-sm:py-0.5";

function when(iso: string | null, none: string): string {
  return iso ? new Date(iso).toLocaleString() : none;
}

function PhoneLabel({ children }: { children: string }) {
  return (
    <span className="mr-1 text-xs font-medium uppercase text-slate-600 dark:text-slate-400 sm:hidden">{children}:</span>
  );
}

/** An agent a token may be bound to: the server lists only those this user may use, and checks again on create. */
export type BindableAgent = { id: string; name: string };

function NewTokenForm({ agents }: { agents: BindableAgent[] }) {
  const create = useCreateToken();
  const [secret, setSecret] = useState<string | null>(null);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Kept before the await: React clears currentTarget once the handler has returned.
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const days = String(form.get("expiresInDays") ?? "").trim();
    const agentId = String(form.get("agentId") ?? "").trim();
    const made = await create.mutateAsync({
      name: String(form.get("name") ?? ""),
      mode: form.get("mode") === "coding" ? "coding" : "chat_safe",
      ...(days ? { expiresInDays: Number(days) } : {}),
      ...(agentId ? { agentId } : {}),
    });
    setSecret(made.token);
    formElement.reset();
  }
  return (
    <div className="space-y-3">
      <form
        onSubmit={(e) => void submit(e).catch(() => undefined)}
        className="grid gap-3 sm:grid-cols-[2fr_1fr_1fr_1fr_auto] sm:items-end"
        aria-label="New access token"
      >
        <label className="text-sm">
          <span className="mb-1 block font-medium">Name</span>
          <input name="name" required maxLength={100} placeholder="e.g. Claude Code on my laptop" className={input} />
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Expires in (days)</span>
          <input name="expiresInDays" type="number" min={1} max={3650} placeholder="never" className={input} />
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Agent</span>
          <select name="agentId" defaultValue="" className={input}>
            <option value="">No agent</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name === agent.id ? agent.id : `${agent.name} (${agent.id})`}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Mode</span>
          <select name="mode" defaultValue="chat_safe" className={input}>
            <option value="chat_safe">chat_safe</option>
            <option value="coding">coding (if granted)</option>
          </select>
        </label>
        <button
          type="submit"
          disabled={create.isPending}
          className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white dark:bg-slate-100 dark:text-slate-900"
        >
          Create token
        </button>
      </form>
      {create.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {create.error.message}
        </p>
      ) : null}
      {secret ? (
        <div
          role="status"
          className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950"
        >
          <p className="font-medium">Copy this token now: it is shown only once.</p>
          <code
            data-testid="new-token"
            className="mt-1 block select-all break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-slate-900"
          >
            {secret}
          </code>
          <button
            type="button"
            onClick={() => setSecret(null)}
            className="mt-2 rounded-md border border-slate-300 px-2 py-1 text-xs dark:border-slate-700"
          >
            I have copied it
          </button>
        </div>
      ) : null}
    </div>
  );
}

function TokenRow({ token, showUser }: { token: TokenView; showUser: boolean }) {
  const revoke = useRevokeToken();
  const [confirming, setConfirming] = useState(false);
  return (
    <tr
      data-testid="token-row"
      className={`border-b border-slate-100 align-top dark:border-slate-800 max-sm:block max-sm:py-2 ${token.status === "active" ? "" : "text-slate-500 dark:text-slate-400"}`}
    >
      <td className={cell}>
        <span className="font-medium">{token.name}</span>
        <div className="text-xs text-slate-600 dark:text-slate-400">
          <code>{token.prefix}…</code> · {token.mode}
          {token.agentId ? ` · agent ${token.agentId}` : ""}
        </div>
        {showUser && token.user ? (
          <div className="text-xs text-slate-600 dark:text-slate-400">{token.user.email}</div>
        ) : null}
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Created</PhoneLabel>
        {when(token.createdAt, "?")}
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Expires</PhoneLabel>
        {when(token.expiresAt, "never")}
      </td>
      <td className={`${cell} text-sm`}>
        <PhoneLabel>Last used</PhoneLabel>
        {when(token.lastUsedAt, "never")}
      </td>
      <td className={`${cell} text-right max-sm:pt-2 max-sm:text-left`}>
        {token.status !== "active" ? (
          <span className="text-sm">{token.status}</span>
        ) : confirming ? (
          <span className="inline-flex gap-2">
            <button
              type="button"
              onClick={() => revoke.mutate(token.id)}
              disabled={revoke.isPending}
              className="rounded-md bg-red-700 px-2 py-1 text-sm font-medium text-white"
            >
              Revoke
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
            aria-label={`Revoke the token ${token.name}`}
            className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700"
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

function TokenTable({ scope }: { scope: "mine" | "all" }) {
  const tokens = useTokens(scope);
  if (tokens.isPending) return <p className="text-sm text-slate-600 dark:text-slate-400">Loading tokens…</p>;
  if (tokens.error)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        Could not load the tokens: {tokens.error.message}
      </p>
    );
  if (tokens.data.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No tokens yet.</p>;
  return (
    <table className="w-full text-left text-sm max-sm:block">
      <thead className="border-b border-slate-200 text-xs uppercase text-slate-600 dark:border-slate-800 dark:text-slate-400 max-sm:hidden">
        <tr>
          <th className="px-3 py-2 font-medium">Token</th>
          <th className="px-3 py-2 font-medium">Created</th>
          <th className="px-3 py-2 font-medium">Expires</th>
          <th className="px-3 py-2 font-medium">Last used</th>
          <th className="px-3 py-2" />
        </tr>
      </thead>
      <tbody className="max-sm:block">
        {tokens.data.map((t) => (
          <TokenRow key={t.id} token={t} showUser={scope === "all"} />
        ))}
      </tbody>
    </table>
  );
}

/** Personal access tokens for outside MCP clients (docs/mcp-gateway.md); admins also see everyone's. */
export function AccessTokens({ isAdmin, agents }: { isAdmin: boolean; agents: BindableAgent[] }) {
  return (
    <div className="space-y-6">
      <section aria-labelledby="tokens-heading" className="space-y-3">
        <h2 id="tokens-heading" className="text-base font-semibold">
          Access tokens
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          MCP clients (Claude Code, Cursor, Codex, the Inspector) connect to <code>/mcp</code> with a token. A token
          acts as you, in its mode and as its agent, under the same policy and approvals as your chats; changing your
          password or deactivation revokes every token.
        </p>
        <NewTokenForm agents={agents} />
        <TokenTable scope="mine" />
      </section>
      {isAdmin ? (
        <section aria-labelledby="all-tokens-heading" className="space-y-3">
          <h2 id="all-tokens-heading" className="text-base font-semibold">
            Every user&apos;s tokens
          </h2>
          <TokenTable scope="all" />
        </section>
      ) : null}
    </div>
  );
}
