import "server-only";
// POST /api/policy/import: the OpenClaw text (JSON5) merged into the draft the admin is editing (or the saved
// document), checked against the tool catalog including plugin tools. Nothing is saved: the editor shows the
// result as a draft with its cell changes, and the admin saves it like any other edit.
import { parsePolicyDocument } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { maskMcpSecrets } from "@/lib/tools/mcp";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { grantsByEmail, grantsById } from "./grant-emails";
import { refreshPluginTools } from "./mcp-service";
import { importOpenClawConfig } from "./openclaw-import";
import { parseOpenClawUpload } from "./openclaw-parse";
import type { ImportBodyInput } from "./schemas";

export async function importPolicy({ text, base }: ImportBodyInput) {
  const input = await parseOpenClawUpload(text);
  let document;
  // The saved document holds MCP secrets sealed: the editor gets them masked, as GET /api/policy shows them.
  if (base === undefined) document = maskMcpSecrets((await loadPolicyDocument()).document);
  else {
    const parsed = parsePolicyDocument(await grantsById(base));
    if (!parsed.ok) {
      throw new AppError(
        "VALIDATION_FAILED",
        `the draft to import into is invalid: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
        { issues: parsed.issues },
      );
    }
    document = parsed.document;
  }
  await refreshPluginTools();
  const result = importOpenClawConfig(input, document, getToolRegistry().meta());
  // The editor works with grants keyed by e-mail (grant-emails.ts).
  return { ...result, document: await grantsByEmail(result.document) };
}
