"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useLiveEvents } from "@/components/live-events";

export type { GrantScope as Scope } from "@/lib/approvals/grant-choice";
import type { GrantScope as Scope } from "@/lib/approvals/grant-choice";

export type Approval = {
  id: string;
  kind: string;
  status: "pending" | "approved" | "denied" | "expired";
  decision: string | null;
  sessionId: string;
  requester: { id: string; email: string | null };
  /** An outside MCP client's name, when the call came through /mcp. */
  client?: string | null;
  toolName: string;
  callId: string;
  args: unknown;
  command: string | null;
  analysis: { ok?: boolean; reason?: string; segments?: Array<{ executable: string; argv: string[] }> } | null;
  /** Toolgate's words. */
  reason: string;
  /** The requester's words, shown apart and marked as theirs. */
  requesterNote?: string | null;
  createdAt: string;
  expiresAt: string;
  resolvedAt: string | null;
  resolvedBy: { id: string; email: string | null } | null;
  resolveReason: string | null;
  /** What allow-always would store (exact rule text) and the scopes it may be given, when the server says. */
  allowAlways?: { rules: string[]; refused: string[]; scopes: Scope[] };
  /** Labelled risk cues (destructive, network, outside the workspace, first use), from the server. */
  risks?: Array<{ kind: string; label: string; detail: string }>;
};

export type ApprovalWithContext = Approval & { context?: Array<{ role: string; content: string; createdAt: string }> };

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error((await res.json().catch(() => null))?.error?.message ?? `request failed (${res.status})`);
  return res.json();
}

/** Pending and recent approvals, kept fresh by the approvals event stream (React Query caches invalidated). */
export function useApprovals() {
  const client = useQueryClient();
  const invalidate = () => client.invalidateQueries({ queryKey: ["approvals"] });
  useLiveEvents({ onEvent: (type) => type.startsWith("approval.") && invalidate(), onOpen: invalidate });
  const pending = useQuery({ queryKey: ["approvals", "pending"], queryFn: () => getJson<{ approvals: Approval[] }>("/api/approvals?status=pending").then((r) => r.approvals) });
  const history = useQuery({
    queryKey: ["approvals", "history"],
    queryFn: () => getJson<{ approvals: Approval[] }>("/api/approvals?limit=50").then((r) => r.approvals.filter((a) => a.status !== "pending")),
  });
  return { pending, history };
}

/** One request with the conversation that led to it (owners only). */
export function useApprovalDetail(id: string) {
  return useQuery({ queryKey: ["approvals", "detail", id], queryFn: () => getJson<{ approval: ApprovalWithContext }>(`/api/approvals/${id}`).then((r) => r.approval) });
}

export function useDecide() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, decision, reason, scope }: { id: string; decision: "allow-once" | "allow-always" | "deny"; reason?: string; scope?: Scope }) => {
      const res = await fetch(`/api/approvals/${id}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision, reason: reason || undefined, ...(decision === "allow-always" && scope ? { grant: { scope } } : {}) }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `decision failed (${res.status})`);
      return body as { status: string; allowlisted: string[]; refused: string[] };
    },
    onSettled: () => client.invalidateQueries({ queryKey: ["approvals"] }),
  });
}

export function usePendingCount(enabled: boolean) {
  return usePendingApprovals(enabled)?.length ?? 0;
}

/** The pending requests, re-read on every approval event (shared with the inbox's own query). */
export function usePendingApprovals(enabled: boolean): Approval[] | undefined {
  const client = useQueryClient();
  const invalidate = () => enabled && client.invalidateQueries({ queryKey: ["approvals", "pending"] });
  useLiveEvents({ onEvent: (type) => type.startsWith("approval.") && invalidate(), onOpen: invalidate });
  const q = useQuery({ queryKey: ["approvals", "pending"], enabled, queryFn: () => getJson<{ approvals: Approval[] }>("/api/approvals?status=pending").then((r) => r.approvals) });
  return q.data;
}
