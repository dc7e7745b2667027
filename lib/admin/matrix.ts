// The admin matrix: every tool (grouped) × every mode, each cell the decision of resolveEffectiveToolPolicy, the
// same call both gates make, with its provenance. Pure, so the server and the editor (draft preview) share it.
import {
  decideExec,
  resolveEffectiveToolPolicy,
  TOOL_MODES,
  type ChainEntry,
  type ExecSettings,
  type PolicyContext,
  type PolicyDocument,
  type PolicyWarning,
  type ToolMeta,
  type ToolMode,
} from "@/lib/policy";

export type CellStatus = "allowed" | "denied" | "ask";

export type MatrixCell = {
  status: CellStatus;
  layer: string;
  rule?: string;
  source?: string;
  reason: string;
  errorCode?: string;
  chain: ChainEntry[];
  /** exec only: whether every command or only some wait (or are refused) under the exec settings. */
  execScope?: "every" | "some";
};

export type MatrixRow = { name: string; group: string; cells: Record<ToolMode, MatrixCell> };
export type MatrixGroup = { group: string; rows: MatrixRow[] };
export type MatrixColumn = { mode: ToolMode; granted: boolean; evaluatedAs: ToolMode };

export type PolicyMatrix = { columns: MatrixColumn[]; groups: MatrixGroup[]; warnings: PolicyWarning[] };

/** The context without its mode: the matrix evaluates every mode. */
export type MatrixContext = Omit<PolicyContext, "mode">;

export type CellFlip = { tool: string; mode: ToolMode; from: CellStatus; to: CellStatus };

function statusOf(decision: { allowed: boolean; effect: string }): CellStatus {
  if (!decision.allowed) return "denied";
  return decision.effect === "ask" ? "ask" : "allowed";
}

export type ExecCellNote = {
  status: "allowed" | "ask" | "denied";
  scope: "every" | "some";
  reason: string;
  rule: string;
};

/**
 * What the exec settings do to an exec call the layers let through. The execution gate asks decideExec per command
 * (lib/runs/gate.ts via lib/exec/decide.ts); the matrix has no command, so it asks the same function about the two
 * commands that bound the answer: one every part of which is covered by a rule, a grant or a safe bin, and one
 * that is not. If even the covered one waits, every command waits; if only the uncovered one does, some do.
 */
export function execCellNote(
  exec: Pick<ExecSettings, "security" | "ask"> & { askRules?: readonly string[] },
): ExecCellNote | undefined {
  const settings = { security: exec.security, ask: exec.ask };
  const rule = `exec.security: ${exec.security}, exec.ask: ${exec.ask}`;
  const covered = decideExec({ settings, analysis: { ok: true }, coverage: { satisfied: true } });
  const uncovered = decideExec({ settings, analysis: { ok: true }, coverage: { satisfied: false } });
  if (covered.action === "deny")
    return { status: "denied", scope: "every", reason: `Every command is refused: ${covered.reason}.`, rule };
  if (covered.action === "ask")
    return {
      status: "ask",
      scope: "every",
      reason: `Every command waits for an owner's approval: ${covered.reason}.`,
      rule,
    };
  if (exec.security === "sandbox") {
    // The mode that decides is named even where nothing waits: "allowed" here means "in the sandbox".
    const rules = exec.askRules ?? [];
    const escalation = decideExec({
      settings,
      analysis: { ok: true },
      coverage: { satisfied: false },
      escalations: { askRule: "an ask rule matches" },
    });
    const asks = escalation.action === "ask" ? "wait for an owner's approval" : "are refused (ask: off)";
    const why =
      rules.length > 0
        ? `commands matching exec.askRules (${rules.length}) and commands an agent or team runs on the host (exec.host)`
        : "commands an agent or team runs on the host (exec.host)";
    return {
      status: "allowed",
      scope: "some",
      reason: `Sandbox mode: every command runs in the sandbox without an owner (no network, only the workspace writable); ${why} ${asks}.`,
      rule,
    };
  }
  if (uncovered.action === "ask") {
    return {
      status: "ask",
      scope: "some",
      reason: `Commands not covered by an exec allowlist rule, a grant or a safe bin wait for an owner's approval (${uncovered.reason}); covered ones run.`,
      rule,
    };
  }
  return undefined;
}

export function buildPolicyMatrix({
  context,
  document,
  tools,
}: {
  context: MatrixContext;
  document: PolicyDocument;
  tools: readonly ToolMeta[];
}): PolicyMatrix {
  const columns: MatrixColumn[] = [];
  const warnings = new Map<string, PolicyWarning>();
  const byMode = new Map<ToolMode, ReturnType<typeof resolveEffectiveToolPolicy>>();
  for (const mode of TOOL_MODES) {
    const policy = resolveEffectiveToolPolicy({ ...context, mode }, { document, tools });
    byMode.set(mode, policy);
    columns.push({ mode, granted: policy.grantedModes.includes(mode), evaluatedAs: policy.mode });
    for (const warning of policy.warnings)
      warnings.set(`${warning.code}|${warning.source ?? ""}|${warning.message}`, warning);
  }
  const groups = new Map<string, MatrixRow[]>();
  for (const tool of tools) {
    const group = tool.group ?? "code";
    const cells = {} as Record<ToolMode, MatrixCell>;
    let name = tool.name;
    for (const mode of TOOL_MODES) {
      const policy = byMode.get(mode)!;
      const decision = policy.check(tool.name);
      name = decision.name;
      const exec = decision.allowed && decision.name === "exec" ? execCellNote(policy.exec) : undefined;
      if (exec) {
        cells[mode] = {
          status: exec.status,
          layer: "exec",
          rule: exec.rule,
          source: "exec",
          reason: `${decision.reason} ${exec.reason}`.trim(),
          ...(exec.status === "denied" ? { errorCode: "POLICY_DENIED" } : {}),
          chain: [...decision.chain],
          execScope: exec.scope,
        };
        continue;
      }
      cells[mode] = {
        status: statusOf(decision),
        layer: decision.layer,
        ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
        ...(decision.source !== undefined ? { source: decision.source } : {}),
        reason: decision.reason,
        ...(decision.errorCode !== undefined ? { errorCode: decision.errorCode } : {}),
        chain: [...decision.chain],
      };
    }
    const rows = groups.get(group) ?? [];
    rows.push({ name, group, cells });
    groups.set(group, rows);
  }
  return {
    columns,
    groups: [...groups]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([group, rows]) => ({ group, rows: rows.sort((a, b) => a.name.localeCompare(b.name)) })),
    warnings: [...warnings.values()],
  };
}

/** Cells whose status differs between two matrices of the same tools (saved vs draft). */
export function diffMatrices(before: PolicyMatrix, after: PolicyMatrix): CellFlip[] {
  const old = new Map<string, MatrixRow>();
  for (const group of before.groups) for (const row of group.rows) old.set(row.name, row);
  const flips: CellFlip[] = [];
  for (const group of after.groups) {
    for (const row of group.rows) {
      const previous = old.get(row.name);
      if (!previous) continue;
      for (const mode of TOOL_MODES) {
        const from = previous.cells[mode].status;
        const to = row.cells[mode].status;
        if (from !== to) flips.push({ tool: row.name, mode, from, to });
      }
    }
  }
  return flips;
}

export const CELL_LABELS: Readonly<Record<CellStatus, string>> = {
  allowed: "allowed",
  denied: "denied",
  ask: "needs approval",
};
