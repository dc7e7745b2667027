import { inject } from "vitest";
import type { AppTarget } from "./global-setup";

/** The running apps (SQLite always, PostgreSQL when configured) as [kind, target] rows for describe.each. */
export function appTargets(): Array<[string, AppTarget]> {
  return inject("apps").map((t) => [t.kind, t]);
}
