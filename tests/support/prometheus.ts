// Reads a /metrics answer with a real Prometheus text-format parser (parse-prometheus-text-format, prom2json's
// output shape), and finds samples by name and labels.
// @ts-expect-error -- the package ships no types; its output shape is declared below
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export type Family = {
  name: string;
  help: string;
  type: string;
  metrics: Array<{
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }>;
};

export function parseMetrics(text: string): Family[] {
  return (parsePrometheusTextFormat as (text: string) => Family[])(text);
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none), summed over the rest. */
export function sample(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

export async function scrape(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; families: Family[]; text: string; contentType: string | null }> {
  const res = await fetch(`${url}/metrics`, { headers });
  const text = await res.text();
  return {
    status: res.status,
    families: res.ok ? parseMetrics(text) : [],
    text,
    contentType: res.headers.get("content-type"),
  };
}

/**
 * A histogram's observation count for one label set, read from its `_count` line. The parser above merges the
 * series of a labelled histogram into one (its flattening keys them by `le` only), so histograms are read here.
 */
export function histogramCount(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_count(?:\\{([^}]*)\\})? (\\S+)$`, "gm"))) {
    const found = Object.fromEntries([...(m[1] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) total += Number(m[2]);
  }
  return total;
}
