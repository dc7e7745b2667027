"use client";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { api } from "./api";
import type { AuditResponse, VerifyResponse } from "./types";

export type AuditFilters = {
  user: string;
  session: string;
  tool: string;
  decision: string;
  layer: string;
  action: string;
  from: string;
  to: string;
};

export const EMPTY_FILTERS: AuditFilters = {
  user: "",
  session: "",
  tool: "",
  decision: "",
  layer: "",
  action: "",
  from: "",
  to: "",
};

export function auditQueryString(filters: AuditFilters, cursor: number | undefined, limit: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (!value) continue;
    // datetime-local has no zone: read it as the browser's local time and send an ISO instant.
    params.set(key, key === "from" || key === "to" ? new Date(value).toISOString() : value);
  }
  if (cursor !== undefined) params.set("cursor", String(cursor));
  params.set("limit", String(limit));
  return params.toString();
}

const FILTER_KEYS = Object.keys(EMPTY_FILTERS) as Array<keyof AuditFilters>;

/** The filters as the page's URL keeps them (as typed, so they round-trip into the form). */
export function filtersFromParams(params: URLSearchParams): AuditFilters {
  const filters = { ...EMPTY_FILTERS };
  for (const key of FILTER_KEYS) filters[key] = params.get(key) ?? "";
  return filters;
}

export function filtersToParams(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) if (filters[key]) params.set(key, filters[key]);
  return params.toString();
}

/** The download of every row these filters match (the API's own query, without paging). */
export function auditExportHref(filters: AuditFilters, format: "csv" | "json"): string {
  const params = new URLSearchParams(auditQueryString(filters, undefined, 1));
  params.delete("limit");
  params.set("format", format);
  return `/api/audit/export?${params.toString()}`;
}

export function useAuditPage(filters: AuditFilters, cursor: number | undefined, limit = 50) {
  return useQuery({
    queryKey: ["audit", filters, cursor, limit],
    queryFn: () => api<AuditResponse>(`/api/audit?${auditQueryString(filters, cursor, limit)}`),
    placeholderData: keepPreviousData,
  });
}

export function useVerifyChain() {
  return useMutation({ mutationFn: () => api<VerifyResponse>("/api/audit/verify", { method: "POST" }) });
}
