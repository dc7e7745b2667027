"use client";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useLiveEvents } from "@/components/live-events";

export type { GrantScope as Scope } from "@/lib/approvals/grant-choice";
import type { GrantScope as Scope } from "@/lib/approvals/grant-choice";
import { refetchAfterWrite } from "@/components/refetch-after-write";
import type { ApprovalDetailView, ApprovalPage, ApprovalView } from "@/lib/approvals/approval-view";
import type { FilterableRiskKind } from "@/lib/exec/risk-kinds";

export type Approval = ApprovalView;
export type ApprovalWithContext = ApprovalDetailView;

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok)
    throw new Error((await res.json().catch(() => null))?.error?.message ?? `request failed (${res.status})`);
  return res.json();
}

export type { ApprovalPage };

/** The inbox's filters, as the list API names them (empty values are left out). */
export type InboxFilters = {
  q?: string;
  requester?: string;
  tool?: string;
  kind?: "" | "exec" | "tool";
  agent?: string;
  team?: string;
  /** One risk cue the request carries (the server reads a comma list; the control picks one). */
  risk?: "" | FilterableRiskKind;
};

export const PAGE_SIZE = 50;

function listUrl(status: string, filters: InboxFilters, cursor: string | null) {
  const params = new URLSearchParams({ status, limit: String(PAGE_SIZE) });
  for (const [k, v] of Object.entries(filters)) if (typeof v === "string" && v.trim()) params.set(k, v.trim());
  if (cursor) params.set("cursor", cursor);
  return `/api/approvals?${params}`;
}

/** One list of the inbox (pending, or decided ones), page by page with the server's cursor. */
function useApprovalList(status: string, filters: InboxFilters) {
  const q = useInfiniteQuery({
    queryKey: ["approvals", "list", status, filters],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => getJson<ApprovalPage>(listUrl(status, filters, pageParam)),
    getNextPageParam: (last) => last.nextCursor,
  });
  const first = q.data?.pages[0];
  return {
    data: q.data?.pages.flatMap((p) => p.approvals),
    total: first ? { count: first.total, capped: first.totalCapped } : null,
    isLoading: q.isLoading,
    error: q.error,
    hasMore: q.hasNextPage,
    loadingMore: q.isFetchingNextPage,
    loadMore: () => void q.fetchNextPage(),
  };
}

/** Pending and decided approvals matching the filters, kept fresh by the approvals event stream. */
export function useApprovals(filters: InboxFilters = {}, decidedStatus = "decided") {
  const client = useQueryClient();
  const invalidate = () => refetchAfterWrite(client, { queryKey: ["approvals"] });
  useLiveEvents({ onEvent: (type) => type.startsWith("approval.") && invalidate(), onOpen: invalidate });
  const pending = useApprovalList("pending", filters);
  const history = useApprovalList(decidedStatus, filters);
  return { pending, history };
}

/** Denies the listed requests; the answer says which were denied and which were no longer pending. */
export function useBulkDeny() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ ids, reason }: { ids: string[]; reason?: string }) => {
      const res = await fetch("/api/approvals/bulk-deny", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ids, reason: reason || undefined }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `bulk deny failed (${res.status})`);
      return body as { denied: string[]; skipped: Array<{ id: string; reason: string }> };
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["approvals"] }),
  });
}

/** One request with the conversation that led to it (owners only). */
export function useApprovalDetail(id: string) {
  return useQuery({
    queryKey: ["approvals", "detail", id],
    queryFn: () => getJson<{ approval: ApprovalWithContext }>(`/api/approvals/${id}`).then((r) => r.approval),
  });
}

export function useDecide() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({
      id,
      decision,
      reason,
      scope,
    }: {
      id: string;
      decision: "allow-once" | "allow-always" | "deny";
      reason?: string;
      scope?: Scope;
    }) => {
      const res = await fetch(`/api/approvals/${id}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          decision,
          reason: reason || undefined,
          ...(decision === "allow-always" && scope ? { grant: { scope } } : {}),
        }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `decision failed (${res.status})`);
      return body as { status: string; allowlisted: string[]; refused: string[] };
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["approvals"] }),
  });
}

/** The number of pending requests for the nav badge: the list's own total, "1000+" past the count's cap. */
export function usePendingCount(enabled: boolean): string | null {
  const page = usePendingPage(enabled);
  if (!page || page.total === 0) return null;
  return page.totalCapped ? `${page.total}+` : String(page.total);
}

/** The newest pending requests (one page), re-read on every approval event. */
export function usePendingApprovals(enabled: boolean): Approval[] | undefined {
  return usePendingPage(enabled)?.approvals;
}

function usePendingPage(enabled: boolean): ApprovalPage | undefined {
  const client = useQueryClient();
  const invalidate = () => enabled && refetchAfterWrite(client, { queryKey: ["approvals", "pending"] });
  useLiveEvents({ onEvent: (type) => type.startsWith("approval.") && invalidate(), onOpen: invalidate });
  const q = useQuery({
    queryKey: ["approvals", "pending"],
    enabled,
    queryFn: () => getJson<ApprovalPage>("/api/approvals?status=pending"),
  });
  return q.data;
}
