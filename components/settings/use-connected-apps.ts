"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { refetchAfterWrite } from "@/components/refetch-after-write";

const GrantSchema = z.object({
  id: z.string(),
  clientName: z.string(),
  mode: z.string(),
  agentId: z.string().nullable(),
  createdAt: z.string(),
  lastTokenAt: z.string().nullable(),
});
export type GrantView = z.infer<typeof GrantSchema>;
const CountsSchema = z.object({ accessTokens: z.number(), oauthGrants: z.number(), oauthTokens: z.number() });
export type RevokedCounts = z.infer<typeof CountsSchema>;

async function failure(res: Response): Promise<Error> {
  const body = await res.json().catch(() => null);
  return new Error(body?.error?.message ?? `request failed (${res.status})`);
}

export function useConnectedApps() {
  return useQuery({
    queryKey: ["oauth-grants"],
    queryFn: async (): Promise<GrantView[]> => {
      const res = await fetch("/api/me/oauth-grants");
      if (!res.ok) throw await failure(res);
      return z.object({ grants: z.array(GrantSchema) }).parse(await res.json()).grants;
    },
  });
}

export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      const res = await fetch(`/api/me/oauth-grants/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (!res.ok) throw await failure(res);
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["oauth-grants"] }),
  });
}

export function useRevokeAll() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<RevokedCounts> => {
      const res = await fetch("/api/me/revoke-all", { method: "POST" });
      if (!res.ok) throw await failure(res);
      return z.object({ revoked: CountsSchema }).parse(await res.json()).revoked;
    },
    onSettled: async () => {
      await refetchAfterWrite(client, { queryKey: ["oauth-grants"] });
      await refetchAfterWrite(client, { queryKey: ["tokens"] });
    },
  });
}
