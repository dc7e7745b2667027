"use client";
import { useState } from "react";

/**
 * Approve or deny an MCP client's request. The answer is a same-origin JSON POST (CSRF-safe: no form or simple
 * cross-site request can send it); the server checks the whole request again and names where to go next.
 */
export function ConsentForm({ params }: { params: Record<string, string> }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<"chat_safe" | "coding">("chat_safe");
  const [agentId, setAgentId] = useState("");
  async function decide(decision: "approve" | "deny") {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/oauth/consent", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ params, decision, mode, ...(agentId.trim() ? { agentId: agentId.trim() } : {}) }),
      });
      const body = (await res.json().catch(() => null)) as { redirectTo?: string; error?: { message?: string } } | null;
      if (!res.ok || !body?.redirectTo) throw new Error(body?.error?.message ?? `the answer was ${res.status}`);
      window.location.assign(body.redirectTo);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  }
  return (
    <div className="space-y-4">
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Mode</span>
        <select
          value={mode}
          onChange={(e) => setMode(e.target.value === "coding" ? "coding" : "chat_safe")}
          className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
        >
          <option value="chat_safe">chat_safe (default)</option>
          <option value="coding">coding (only if you hold a coding grant)</option>
        </select>
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Agent id (optional)</span>
        <input
          value={agentId}
          onChange={(e) => setAgentId(e.target.value)}
          placeholder="e.g. claude-code"
          maxLength={64}
          className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      {error ? (
        <p role="alert" className="rounded-md bg-red-50 p-2 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
          {error}
        </p>
      ) : null}
      <div className="flex gap-3">
        <button
          type="button"
          disabled={busy}
          onClick={() => void decide("approve")}
          className="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900"
        >
          Allow
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => void decide("deny")}
          className="rounded-md border border-slate-300 px-4 py-2 text-sm dark:border-slate-700"
        >
          Deny
        </button>
      </div>
    </div>
  );
}
