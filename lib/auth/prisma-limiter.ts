import "server-only";
// rate-limiter-flexible's Prisma store, counting a request in one database operation instead of two. The library
// deletes an expired window's row and then upserts (two operations on every request, issue 27: each Prisma
// operation is a query compiled and run on the main thread). Here the upsert comes first and the window is started
// anew only when the row it answered had expired, which happens once per key and window; the reset is conditional on
// the row still being expired, so of two requests that both find the old window, one starts the new one and the other
// counts itself in it. Concurrent requests are all counted, as with the library's store.
import { RateLimiterPrisma } from "rate-limiter-flexible";

type WindowRow = { key: string; points: number; expire: Date | null };
type WindowModel = {
  upsert(args: {
    where: { key: string };
    create: WindowRow;
    update: { points: { increment: number } };
  }): Promise<WindowRow>;
  updateMany(args: {
    where: { key: string; expire: { lte: Date } };
    data: { points: number; expire: Date | null };
  }): Promise<{ count: number }>;
};
type Upsert = (key: string, points: number, msDuration: number, forceExpire?: boolean) => Promise<WindowRow>;

/** Rounds before giving the count to the library's own two-step store (never reached but under a storm of resets). */
const MAX_ROUNDS = 3;

export class PrismaWindowLimiter extends RateLimiterPrisma {
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<WindowRow> {
    const inherited = (RateLimiterPrisma.prototype as unknown as { _upsert: Upsert })._upsert;
    if (forceExpire) return inherited.call(this, key, points, msDuration, true);
    const self = this as unknown as { prismaClient: Record<string, WindowModel>; modelName: string };
    return countInWindow(self.prismaClient[self.modelName]!, key, points, msDuration).then(
      (row) => row ?? inherited.call(this, key, points, msDuration, false),
    );
  }
}

async function countInWindow(
  model: WindowModel,
  key: string,
  points: number,
  msDuration: number,
): Promise<WindowRow | null> {
  const now = new Date();
  const expire = msDuration > 0 ? new Date(now.getTime() + msDuration) : null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const row = await model.upsert({
      where: { key },
      create: { key, points, expire },
      update: { points: { increment: points } },
    });
    if (row.expire === null || row.expire.getTime() > now.getTime()) return row;
    // The window had ended: this request starts the next one, unless another request did since the upsert (then
    // its reset dropped this request's increment, and the next round counts it in the new window).
    const reset = await model.updateMany({ where: { key, expire: { lte: now } }, data: { points, expire } });
    if (reset.count === 1) return { key, points, expire };
  }
  return null;
}
