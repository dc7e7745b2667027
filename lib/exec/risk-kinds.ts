// The vocabulary of risk cues, without the analysis (lib/exec/risk.ts): the inbox's filter control, the list
// query's schema and the stored column share it, and a client component can import it.

export const RISK_KINDS = ["not-analysed", "destructive", "network", "outside-workspace", "first-use"] as const;
export type RiskKind = (typeof RISK_KINDS)[number];

export const RISK_LABELS: Record<RiskKind, string> = {
  "not-analysed": "Not analysed: read it whole",
  destructive: "Destructive",
  network: "Network",
  "outside-workspace": "Outside the workspace",
  "first-use": "First use",
};

/**
 * The cues the inbox can filter by: those the request itself carries, stored when it is registered. "First use"
 * is not one: it depends on what the requester ran before, which a request made later can change the meaning of.
 */
export const FILTERABLE_RISK_KINDS = ["destructive", "network", "outside-workspace", "not-analysed"] as const;
export type FilterableRiskKind = (typeof FILTERABLE_RISK_KINDS)[number];

/** The stored form: comma-wrapped (",destructive,network,"), "" for none, so one kind is one `LIKE '%,kind,%'`. */
export function encodeRiskKinds(kinds: readonly string[]): string {
  const stored = kinds.filter((k): k is FilterableRiskKind => (FILTERABLE_RISK_KINDS as readonly string[]).includes(k));
  return stored.length ? `,${[...new Set(stored)].join(",")},` : "";
}
