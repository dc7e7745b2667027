"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";

function useInvalidating<T>(fn: (arg: T) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => client.invalidateQueries({ queryKey: ["admin-users"] }) });
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
  return useInvalidating((teamId: string) => api(`/api/admin/teams/${encodeURIComponent(teamId)}`, { method: "DELETE" }));
}

export function useTeamMember() {
  return useInvalidating((a: { teamId: string; userId: string; action: "add" | "remove" }) =>
    api(`/api/admin/teams/${encodeURIComponent(a.teamId)}/members`, { body: { userId: a.userId, action: a.action } }),
  );
}
