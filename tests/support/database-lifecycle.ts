// The lifecycle of an integration file that runs lib/ on one database target. Before its tests: the modules and
// the event bus reset (lib/config reads DATABASE_URL once per module load, and the tailer is process-wide), a fresh
// database prepared and named in DATABASE_URL. After them: lib's client disconnected, the modules reset and the
// database dropped. A file imports its lib modules in its own beforeAll, which runs after this one.
import { afterAll, beforeAll, vi } from "vitest";
import { prepareDatabase, resetEventBus, type DatabaseTarget } from "./databases";

export function useDatabase(make: () => Promise<DatabaseTarget>): void {
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    vi.resetModules();
    resetEventBus();
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
  });
  afterAll(async () => {
    // The tailer's timer and LISTEN connection would go on logging about a database that is gone, after the file ended.
    await (await import("@/lib/events/bus")).stopEventTailer();
    await (await import("@/lib/db/client")).getDb().$disconnect();
    vi.resetModules();
    await drop?.();
  });
}
