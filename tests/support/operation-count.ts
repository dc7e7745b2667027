// Counts the Prisma operations (model queries and raw statements, inside transactions too) lib makes through
// getDb(), for tests and benchmarks only: the client lib/db/client.ts caches for this DATABASE_URL is swapped for
// the same client with one more query extension that writes each operation down. Production code is untouched.
import type { Db } from "@/lib/db/client";

export type OperationLog = {
  /** "Model.operation" (or "$queryRaw" …) of each operation since the last reset, in order. */
  readonly operations: string[];
  reset(): void;
  /** The operations made while `fn` ran. */
  during(fn: () => Promise<unknown>): Promise<string[]>;
  /** Puts the uncounted client back. */
  restore(): void;
};

export function countOperations(url: string): OperationLog {
  const cache = (globalThis as { toolgateDb?: Map<string, Db> }).toolgateDb;
  const base = cache?.get(url);
  if (!cache || !base) throw new Error("no client cached for this URL yet: call getDb() first");
  const operations: string[] = [];
  const counted = base.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        operations.push(model ? `${model}.${operation}` : operation);
        return query(args);
      },
    },
  }) as unknown as Db;
  cache.set(url, counted);
  return {
    operations,
    reset: () => void operations.splice(0),
    async during(fn) {
      operations.splice(0);
      await fn();
      return [...operations];
    },
    restore: () => void cache.set(url, base),
  };
}
