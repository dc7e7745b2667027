"use client";
import type { InvalidateQueryFilters, QueryClient } from "@tanstack/react-query";

/**
 * Re-reads cached queries after a write. `invalidateQueries` alone does not: a query whose first read is still in
 * flight (no data yet) is not refetched, the invalidation joins that read, and a read the server answered before the
 * write lands as the fresh one. A token created while the Settings list was still loading stayed missing from it (a
 * browser test caught it once, on a loaded machine). Cancelling first drops such a read, so the refetch starts after
 * the write.
 */
export async function refetchAfterWrite(client: QueryClient, filters: InvalidateQueryFilters = {}): Promise<void> {
  await client.cancelQueries(filters);
  await client.invalidateQueries(filters);
}
