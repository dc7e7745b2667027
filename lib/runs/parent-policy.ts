import "server-only";
// A child session's tools are capped by its ancestors' tools. The cap is derived from the database (each
// ancestor's stored mode and depth under the policy in force now), not handed over in memory, so a child run
// that paused for an approval and resumes on another instance after a restart is still capped the same way.
import { restrictToParent, type EffectiveToolPolicy, type PolicyContext, type ToolMode } from "@/lib/policy";
import { findOwnedSession, type SessionRow } from "@/lib/db/sessions";
import { getSessionMode } from "./session-mode";

// Far above any maxSpawnDepth the schema accepts (10): a corrupt parent chain cannot loop forever.
const MAX_ANCESTORS = 16;

export async function limitToAncestors({
  session,
  policy,
  context,
  grantedModes,
  resolve,
}: {
  session: SessionRow;
  policy: EffectiveToolPolicy;
  context: PolicyContext;
  grantedModes: readonly ToolMode[];
  resolve: (context: PolicyContext) => EffectiveToolPolicy;
}): Promise<EffectiveToolPolicy> {
  let limited = policy;
  let parentId = session.parentId;
  for (let hops = 0; parentId; hops += 1) {
    const parent =
      hops < MAX_ANCESTORS ? await findOwnedSession({ sessionId: parentId, ownerId: session.ownerId }) : null;
    // A missing ancestor (deleted, another owner) leaves nothing to inherit: fail closed.
    if (!parent) return restrictToParent(limited, []);
    const { mode } = await getSessionMode({ sessionId: parent.id, grantedModes });
    const parentPolicy = resolve({
      ...context,
      mode,
      agentId: parent.agentId ?? undefined,
      subagentDepth: parent.depth,
    });
    limited = restrictToParent(limited, parentPolicy.allowedTools);
    parentId = parent.parentId;
  }
  return limited;
}
