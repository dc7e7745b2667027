// One piece of work at a time per key (a workspace's directory), in the order asked. A key is kept only while work
// for it is queued or running: keyed by workspace, a map that kept every key would grow with every workspace this
// instance ever served, and never give the memory back (issue 29).
export class KeyedTurns {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Only the last in line removes the key: one queued behind it has replaced the tail, and keeps its turn.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
