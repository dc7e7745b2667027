"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { DevicesResponseSchema, type DeviceView } from "@/lib/auth/device-views";
import { refetchAfterWrite } from "@/components/refetch-after-write";

async function failure(res: Response): Promise<Error> {
  const body = await res.json().catch(() => null);
  return new Error(body?.error?.message ?? `request failed (${res.status})`);
}

export function useDevices() {
  return useQuery({
    queryKey: ["devices"],
    queryFn: async (): Promise<DeviceView[]> => {
      const res = await fetch("/api/me/sessions", { cache: "no-store" });
      if (!res.ok) throw await failure(res);
      return DevicesResponseSchema.parse(await res.json()).sessions;
    },
  });
}

export function useSignOutDevice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string): Promise<{ current: boolean }> => {
      const res = await fetch(`/api/me/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (!res.ok) throw await failure(res);
      return z.object({ current: z.boolean() }).parse(await res.json());
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["devices"] }),
  });
}

export function useSignOutOthers() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<number> => {
      const res = await fetch("/api/me/sessions/revoke-others", { method: "POST" });
      if (!res.ok) throw await failure(res);
      return z.object({ revoked: z.number() }).parse(await res.json()).revoked;
    },
    onSettled: () => refetchAfterWrite(client, { queryKey: ["devices"] }),
  });
}
