import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { getPolicyVersionDocument } from "@/lib/admin/policy-service";
import { handle, parseWith } from "@/lib/http/respond";
import { maskMcpSecrets } from "@/lib/tools/mcp";

// One version's document, for the diff view of the history tab (0 is the built-in default). Secrets masked.
const VersionParam = z
  .string()
  .regex(/^\d{1,9}$/, "a policy version is a whole number")
  .transform(Number);

type Params = { params: Promise<{ version: string }> };

export const GET = handle(async (_request: Request, { params }: Params) => {
  await requireRole("admin");
  const version = parseWith(VersionParam, (await params).version);
  const { document } = await getPolicyVersionDocument({ version });
  return NextResponse.json({ version, document: maskMcpSecrets(document) });
});
