"use client";
// Client data of the policy editor (react-query): the saved policy, tools, history, matrix and replay.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import { api } from "./api";
import type {
  EffectiveResponse,
  PolicyResponse,
  ReplayResponse,
  ToolsResponse,
  UsersResponse,
  VersionEntry,
} from "./types";
import { refetchAfterWrite } from "@/components/refetch-after-write";

export function usePolicy() {
  return useQuery({ queryKey: ["policy"], queryFn: () => api<PolicyResponse>("/api/policy") });
}

export function useTools() {
  return useQuery({
    queryKey: ["policy-tools"],
    queryFn: () => api<ToolsResponse>("/api/policy/tools"),
    staleTime: Infinity,
  });
}

export function useVersions() {
  return useQuery({
    queryKey: ["policy-versions"],
    queryFn: () => api<{ versions: VersionEntry[] }>("/api/policy/versions"),
  });
}

/** One version's document (0: the built-in default), for the diff view; versions never change once saved. */
export function useVersionDocument(version: number | undefined) {
  return useQuery({
    queryKey: ["policy-version", version],
    queryFn: () => api<PolicyResponse>(`/api/policy/versions/${version}`),
    enabled: version !== undefined,
    staleTime: Infinity,
  });
}

export function useDirectory() {
  return useQuery({ queryKey: ["admin-users"], queryFn: () => api<UsersResponse>("/api/admin/users") });
}

/** The matrix for the saved document, or for `draft` when given (then with the cells that flip). */
export function useEffectiveMatrix(
  context: MatrixContextInput | undefined,
  draft: unknown,
  savedVersion: number | undefined,
) {
  return useQuery({
    queryKey: ["policy-effective", savedVersion, context, draft ?? null],
    queryFn: () =>
      api<EffectiveResponse>("/api/policy/effective", {
        body: { context, ...(draft !== undefined ? { document: draft } : {}) },
      }),
    enabled: savedVersion !== undefined && context !== undefined,
    placeholderData: keepPreviousData,
  });
}

export function useReplay() {
  return useMutation({
    mutationFn: (body: { document: unknown; limit: number }) => api<ReplayResponse>("/api/policy/replay", { body }),
  });
}

export function useSavePolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { baseVersion: number; document: unknown; comment?: string; confirmPluginOnly?: boolean }) =>
      api<{ version: number; changed: string[] }>("/api/policy", { method: "PUT", body }),
    onSuccess: () => refetchAfterWrite(client, { predicate: (q) => String(q.queryKey[0]).startsWith("policy") }),
  });
}

export function useRollback() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api<{ version: number }>("/api/policy/rollback", { body: { version } }),
    onSuccess: () => refetchAfterWrite(client, { predicate: (q) => String(q.queryKey[0]).startsWith("policy") }),
  });
}
