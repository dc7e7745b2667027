// Response shapes of the admin API as the pages read them.
import type { PolicyDocument, PolicyWarning, ToolMeta } from "@/lib/policy";
import type { CellFlip, PolicyMatrix } from "@/lib/admin/matrix";
import type { ReplayRow } from "@/lib/admin/replay";

export type PolicyResponse = { version: number; document: PolicyDocument };
export type ToolsResponse = { tools: ToolMeta[] };
export type EffectiveResponse = {
  version: number;
  draft: boolean;
  matrix: PolicyMatrix;
  warnings: PolicyWarning[];
  flips?: CellFlip[];
};
export type { VersionEntry } from "@/lib/admin/policy-views";
export type ReplayResponse = { calls: ReplayRow[]; differing: number };
export type { AdminTeam, AdminUser, UsersResponse } from "@/lib/admin/user-views";
export type { AuditResponse, AuditRow } from "@/lib/admin/audit-views";
/** The witness outside the database the log was checked against (lib/audit/anchor.ts). */
export type VerifyWitness =
  { label: string; kind: "checkpoint" | "reanchor"; seq: number; count: number; at: string } | "none yet" | "off";
export type VerifyResponse = ({ ok: true; count: number } | { ok: false; seq: number; problem: string }) & {
  witness?: VerifyWitness;
};
