"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import { refetchAfterWrite } from "@/components/refetch-after-write";

function useInvalidating<T, R = unknown>(fn: (arg: T) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchAfterWrite(client, { queryKey: ["admin-users"] }) });
}

export function useRoleChange() {
  return useInvalidating((a: { userId: string; role: string; action: "add" | "remove" }) =>
    api(`/api/admin/users/${encodeURIComponent(a.userId)}/roles`, { body: { role: a.role, action: a.action } }),
  );
}

export function useCreateTeam() {
  return useInvalidating((a: { id: string; name: string }) => api("/api/admin/teams", { body: a }));
}

export function useDeleteTeam() {
  return useInvalidating((teamId: string) =>
    api(`/api/admin/teams/${encodeURIComponent(teamId)}`, { method: "DELETE" }),
  );
}

export function useTeamMember() {
  return useInvalidating((a: { teamId: string; userId: string; action: "add" | "remove" }) =>
    api(`/api/admin/teams/${encodeURIComponent(a.teamId)}/members`, { body: { userId: a.userId, action: a.action } }),
  );
}

export type OneTimePassword = { email: string; temporaryPassword: string; reason: "created" | "reset" };

export function useCreateUser() {
  return useInvalidating((a: { email: string; name?: string; roles: string[] }) =>
    api<{ user: { id: string; email: string }; temporaryPassword: string }>("/api/admin/users", { body: a }),
  );
}

export function useResetPassword() {
  return useInvalidating((userId: string) =>
    api<{ userId: string; temporaryPassword: string }>(`/api/admin/users/${encodeURIComponent(userId)}/password`, {
      body: {},
    }),
  );
}

export function useSetActive() {
  return useInvalidating((a: { userId: string; active: boolean }) =>
    api(`/api/admin/users/${encodeURIComponent(a.userId)}/active`, { body: { active: a.active } }),
  );
}
