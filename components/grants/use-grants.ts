"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { GrantViewSchema, type GrantView } from "@/lib/approvals/grant-choice";
import { refetchAfterWrite } from "@/components/refetch-after-write";

async function failure(res: Response): Promise<Error> {
  const body = await res.json().catch(() => null);
  return new Error(body?.error?.message ?? `request failed (${res.status})`);
}

export function useGrants() {
  return useQuery({
    queryKey: ["grants"],
    queryFn: async (): Promise<GrantView[]> => {
      const res = await fetch("/api/exec-allowlist");
      if (!res.ok) throw await failure(res);
      return z.object({ grants: z.array(GrantViewSchema) }).parse(await res.json()).grants;
    },
  });
}

export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      const res = await fetch(`/api/exec-allowlist/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (!res.ok) throw await failure(res);
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["grants"] }),
  });
}
