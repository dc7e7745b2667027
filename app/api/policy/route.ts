import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { refreshPluginTools, syncPluginTools } from "@/lib/admin/mcp-service";
import { grantsByEmail, grantsById } from "@/lib/admin/grant-emails";
import { getPolicy, savePolicy } from "@/lib/admin/policy-service";
import { SavePolicyBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { BODY_LIMITS } from "@/lib/http/body";
import { encryptMcpSecrets, maskMcpSecrets } from "@/lib/tools/mcp";
import { limitMechanism } from "@/lib/tools/cgroups";

// MCP secrets (HTTP headers, stdio env) are write-only: shown masked, stored encrypted, never as submitted.
// Per-user mode grants are shown and taken keyed by e-mail (stored by user id).
export const GET = handle(async () => {
  await requireRole("admin");
  await refreshPluginTools();
  const { version, document } = await getPolicy();
  // execLimits names how exec.member* budgets are enforced on this server (control groups or rlimits only).
  return NextResponse.json({
    version,
    document: await grantsByEmail(maskMcpSecrets(document)),
    execLimits: await limitMechanism(),
  });
});

export const PUT = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const body = await parseJsonBody(request, SavePolicyBody, BODY_LIMITS.policy);
  const document = encryptMcpSecrets(await grantsById(body.document), (await getPolicy()).document);
  const saved = await savePolicy({ actor, ...body, document });
  // Plugin tools of new servers show in the tools list and matrix right away, without waiting for a chat.
  await syncPluginTools();
  return NextResponse.json(saved);
});
