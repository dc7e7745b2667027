"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { TokenViewSchema, type TokenView } from "@/lib/auth/token-views";
import { refetchAfterWrite } from "@/components/refetch-after-write";

async function failure(res: Response): Promise<Error> {
  const body = await res.json().catch(() => null);
  return new Error(body?.error?.message ?? `request failed (${res.status})`);
}

export function useTokens(scope: "mine" | "all") {
  return useQuery({
    queryKey: ["tokens", scope],
    queryFn: async (): Promise<TokenView[]> => {
      const res = await fetch(`/api/tokens?scope=${scope}`);
      if (!res.ok) throw await failure(res);
      return z.object({ tokens: z.array(TokenViewSchema) }).parse(await res.json()).tokens;
    },
  });
}

export type NewToken = { name: string; expiresInDays?: number; agentId?: string; mode: "chat_safe" | "coding" };

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewToken): Promise<{ token: string; accessToken: TokenView }> => {
      const res = await fetch("/api/tokens", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      if (!res.ok) throw await failure(res);
      return z.object({ token: z.string(), accessToken: TokenViewSchema }).parse(await res.json());
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["tokens"] }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      const res = await fetch(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (!res.ok) throw await failure(res);
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["tokens"] }),
  });
}
