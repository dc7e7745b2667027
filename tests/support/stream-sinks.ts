// In-process event streams for tests of lib/events/sse.ts and lib/events/fan-out.ts: a sink that keeps the frames it
// was given, and a wait for a condition on them.
export type Sink = { frames: string[]; closed: boolean; write: (b: Uint8Array) => void; close: () => void };

const decoder = new TextDecoder();

export function sink(): Sink {
  const s: Sink = {
    frames: [],
    closed: false,
    write: (b) => s.frames.push(decoder.decode(b)),
    close: () => (s.closed = true),
  };
  return s;
}

export async function until(what: () => boolean, ms = 5_000, label = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
