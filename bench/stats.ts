// Order statistics of latency samples, one definition for the agent benchmark and its worker processes.
export type Stats = { n: number; p50: number; p99: number; mean: number };

/** The sample at quantile q (0…1) of sorted samples: the nearest rank below, as the tables always reported it. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}
