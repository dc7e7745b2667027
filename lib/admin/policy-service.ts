import "server-only";
// Policy storage for the admin API: versions with optimistic concurrency, history with what changed,
// rollback, the effective matrix (saved or draft) and the replay of recorded calls. Every change is audited.
import { DEFAULT_POLICY_DOCUMENT, parsePolicyDocument, type PolicyDocument } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { modelsForAgent } from "@/lib/models/catalog";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { appendAudit } from "@/lib/db/audit";
import { getPolicyVersion, insertPolicyVersion, listPolicyVersionsWithDocuments } from "@/lib/db/policies";
import { listUsersByIds } from "@/lib/db/users";
import { announceAccountChange } from "@/lib/events/account-events";
import { checkDraft, type UnknownDeny } from "./draft-checks";
import { grantsByEmail, grantsById } from "./grant-emails";
import { buildPolicyMatrix, diffMatrices, type MatrixContext } from "./matrix";
import { changedSections, diffPolicyPaths } from "./policy-diff";
import type { MatrixContextInput } from "./schemas";
import type { AsJson } from "@/lib/as-json";
import type { VersionEntry } from "./policy-views";

type Actor = { id: string };

export async function getPolicy() {
  return loadPolicyDocument();
}

function invalid(issues: Array<{ path: string; message: string }>, what = "the policy document is invalid"): AppError {
  return new AppError("VALIDATION_FAILED", `${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, {
    issues,
  });
}

/**
 * Validates like the gates will read it; refuses loosening overrides, unconfirmed plugin-only allow lists and,
 * unless overridden for this save, deny lists naming nothing. Returns the overridden deny entries for the audit row.
 */
export function validateForSave(
  input: unknown,
  confirmPluginOnly: boolean,
  confirmUnknownDenies = false,
): { document: PolicyDocument; unknownDenies: UnknownDeny[] } {
  const check = checkDraft(input, getToolRegistry().meta());
  if (check.issues.length > 0 || !check.document) throw invalid(check.issues);
  if (check.unknownDenies.length > 0 && !confirmUnknownDenies) {
    throw invalid(
      check.unknownDenies.map((d) => ({ path: d.path, message: `${d.message} (confirmUnknownDenies: true)` })),
      "a deny list names no known tool",
    );
  }
  if (check.pluginOnly.length > 0 && !confirmPluginOnly) {
    throw invalid(
      check.pluginOnly.map((source) => ({
        path: source,
        message: "allows only plugin tools, which removes every core tool here; confirm with confirmPluginOnly: true",
      })),
      "a plugin-only allow list needs confirmation",
    );
  }
  const configured = loadConfig().models;
  const unconfigured = Object.entries(check.document.agents).filter(
    ([, agent]) => agent.model?.trim() && modelsForAgent(configured, agent.model).length === 0,
  );
  if (unconfigured.length > 0) {
    throw invalid(
      unconfigured.map(([id, agent]) => ({
        path: `agents.${id}.model`,
        message: `"${agent.model}" names no configured model; configured: ${configured.map((m) => m.id).join(", ")} (MODELS)`,
      })),
      "an agent names a model that is not configured",
    );
  }
  return { document: check.document, unknownDenies: check.unknownDenies };
}

async function storeVersion({
  actor,
  baseVersion,
  document,
  previous,
  comment,
  action,
  extra,
}: {
  actor: Actor;
  baseVersion: number;
  document: PolicyDocument;
  previous: PolicyDocument;
  comment?: string;
  action: "policy.saved" | "policy.rolled_back";
  extra?: Record<string, unknown>;
}) {
  const result = await insertPolicyVersion({ baseVersion, document, createdById: actor.id, comment });
  if (!result.ok) {
    throw new AppError(
      "CONFLICT",
      `The policy was changed by someone else: version ${result.currentVersion} is newer than your base version ${baseVersion}. Nothing was saved; reload the latest version, reapply your change and save again.`,
      { currentVersion: result.currentVersion, baseVersion },
    );
  }
  const changed = diffPolicyPaths(previous, document);
  await appendAudit({
    action,
    actorId: actor.id,
    decision: "allow",
    details: { version: result.version, baseVersion, changed, ...(comment ? { comment } : {}), ...extra },
  });
  // Mode grants decide which modes anyone may pick: open pages re-read them without a reload.
  if (changed.some((p) => p === "(root)" || p === "modeGrants" || p.startsWith("modeGrants.")))
    await announceAccountChange({ userId: null, change: "mode-grants" });
  return { version: result.version, changed };
}

export async function savePolicy({
  actor,
  baseVersion,
  document,
  comment,
  confirmPluginOnly,
  confirmUnknownDenies,
}: {
  actor: Actor;
  baseVersion: number;
  document: unknown;
  comment?: string;
  confirmPluginOnly?: boolean;
  confirmUnknownDenies?: boolean;
}) {
  const { document: parsed, unknownDenies } = validateForSave(
    document,
    confirmPluginOnly === true,
    confirmUnknownDenies === true,
  );
  // A stale baseVersion is refused by the insert (409); the diff is against what is in force now.
  const current = await loadPolicyDocument();
  // "Save anyway" is recorded with what it let through, so the audit shows who saved a deny that denies nothing.
  const extra =
    unknownDenies.length > 0
      ? { unknownDenyOverride: unknownDenies.map(({ path, entries }) => ({ path, entries })) }
      : undefined;
  return storeVersion({
    actor,
    baseVersion,
    document: parsed,
    previous: current.document,
    comment,
    action: "policy.saved",
    ...(extra ? { extra } : {}),
  });
}

export async function rollbackPolicy({ actor, version }: { actor: Actor; version: number }) {
  const row = await getPolicyVersion({ version });
  if (!row) throw new AppError("NOT_FOUND", `there is no policy version ${version}`);
  const parsed = parsePolicyDocument(row.document);
  if (!parsed.ok) throw invalid(parsed.issues, `version ${version} no longer validates and cannot be restored`);
  const current = await loadPolicyDocument();
  return storeVersion({
    actor,
    baseVersion: current.version,
    document: parsed.document,
    previous: current.document,
    comment: `rollback to version ${version}`,
    action: "policy.rolled_back",
    extra: { restoredVersion: version },
  });
}

/** Stored documents may be partial (written by scripts or older versions): compare them with defaults filled in. */
function normalized(stored: unknown): unknown {
  const parsed = parsePolicyDocument(stored);
  return parsed.ok ? parsed.document : stored;
}

export async function listPolicyHistory({ limit = 50 }: { limit?: number } = {}) {
  const rows = await listPolicyVersionsWithDocuments({ limit: limit + 1 });
  const users = new Map(
    (await listUsersByIds({ ids: [...new Set(rows.flatMap((r) => (r.createdById ? [r.createdById] : [])))] })).map(
      (u) => [u.id, u],
    ),
  );
  return rows.slice(0, limit).map((row, index) => {
    const older = rows[index + 1];
    // The oldest stored version is compared with the built-in default it replaced.
    const previous = older ? normalized(older.document) : row.version === 1 ? DEFAULT_POLICY_DOCUMENT : undefined;
    return {
      version: row.version,
      createdAt: row.createdAt.toISOString(),
      createdBy: row.createdById ? { id: row.createdById, email: users.get(row.createdById)?.email ?? null } : null,
      comment: row.comment,
      changed: previous === undefined ? null : changedSections(previous, normalized(row.document)),
      changedPaths: previous === undefined ? null : diffPolicyPaths(previous, normalized(row.document)),
    };
  });
}

// An entry's shape is defined once (./policy-views.ts, which the policy page imports): this fails to compile on drift.
const _entries = (v: AsJson<Awaited<ReturnType<typeof listPolicyHistory>>>): VersionEntry[] => v;

/** One stored version's document for the diff view (defaults filled in, grants by e-mail; secrets masked by the route). */
export async function getPolicyVersionDocument({ version }: { version: number }) {
  if (version === 0) return { version, document: await grantsByEmail(DEFAULT_POLICY_DOCUMENT) };
  const row = await getPolicyVersion({ version });
  if (!row) throw new AppError("NOT_FOUND", `there is no policy version ${version}`);
  return { version, document: await grantsByEmail(normalized(row.document)) };
}

export function toMatrixContext(input: MatrixContextInput & { roles: MatrixContext["roles"] }): MatrixContext {
  return {
    ...input,
    // docs/requirements.md P2: senderIsOwner only for an owner, never by default.
    senderIsOwner: input.roles.includes("owner"),
  };
}

export async function effectiveMatrix({ context, draft }: { context: MatrixContext; draft?: unknown }) {
  const tools = getToolRegistry().meta();
  const saved = await loadPolicyDocument();
  const savedMatrix = buildPolicyMatrix({ context, document: saved.document, tools });
  if (draft === undefined)
    return { version: saved.version, draft: false, matrix: savedMatrix, warnings: savedMatrix.warnings };
  const parsed = parsePolicyDocument(await grantsById(draft));
  if (!parsed.ok) throw invalid(parsed.issues, "the draft is invalid");
  const draftMatrix = buildPolicyMatrix({ context, document: parsed.document, tools });
  return {
    version: saved.version,
    draft: true,
    matrix: draftMatrix,
    warnings: draftMatrix.warnings,
    flips: diffMatrices(savedMatrix, draftMatrix),
  };
}
