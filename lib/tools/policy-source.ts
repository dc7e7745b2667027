import "server-only";
// The policy document in force: the newest stored version, or the built-in default when none was saved.
// Read on every turn (one indexed query for the version number), so a saved policy applies at once on
// every instance. A stored document that no longer validates is an error: fail closed, no tool runs.
import { DEFAULT_POLICY_DOCUMENT, parsePolicyDocument, type PolicyDocument } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import type { Tx } from "@/lib/db/client";
import { getLatestPolicyVersion, getPolicyVersionNumber } from "@/lib/db/policies";

let cache: { version: number; document: PolicyDocument } | undefined;

/** `tx`: read inside the caller's transaction, which must not wait for a second pooled connection (a full pool deadlocks). */
export async function loadPolicyDocument({ tx }: { tx?: Tx } = {}): Promise<{
  version: number;
  document: PolicyDocument;
}> {
  const version = await getPolicyVersionNumber({ tx });
  if (version === 0) return { version: 0, document: DEFAULT_POLICY_DOCUMENT };
  if (cache?.version === version) return cache;
  const row = await getLatestPolicyVersion({ tx });
  if (!row) return { version: 0, document: DEFAULT_POLICY_DOCUMENT };
  const parsed = parsePolicyDocument(row.document);
  if (!parsed.ok) {
    throw new AppError(
      "INTERNAL",
      `stored policy version ${row.version} is invalid: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
  }
  cache = { version: row.version, document: parsed.document };
  return cache;
}
