import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext, type ToolRunContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { applyHunks, parsePatch, type PatchOperation } from "../patch-format";
import { resolveWorkspacePath, type ResolvedWorkspacePath } from "../workspace";
import {
  assertNotRepositoryMetadata,
  assertWritable,
  deleteResolvedFile,
  readWorkspaceText,
  writeResolvedText,
} from "../workspace-files";

const inputSchema = z.object({
  patch: z
    .string()
    .min(1)
    .describe(
      'Patch text: "*** Begin Patch", then "*** Add File: <path>" (lines prefixed "+"), "*** Update File: <path>" ' +
        '(optional "*** Move to: <path>", then "@@ <context>" hunks of " ", "-", "+" lines) or "*** Delete File: <path>", ' +
        'then "*** End Patch". Paths are relative to the workspace.',
    ),
});

type PlannedChange =
  { kind: "write"; file: ResolvedWorkspacePath; content: string } | { kind: "delete"; file: ResolvedWorkspacePath };

async function plan(ctx: ToolRunContext, op: PatchOperation): Promise<PlannedChange[]> {
  if (op.kind === "add") {
    const file = await resolveWorkspacePath(ctx.workspaceDir, op.path, { forWrite: true });
    if (file.exists)
      throw new AppError(
        "INVALID_ARGUMENTS",
        `cannot add ${file.relativePath}: it already exists; use "*** Update File:"`,
      );
    const content = op.lines.length === 0 ? "" : `${op.lines.join("\n")}\n`;
    assertWritable(ctx, file.relativePath, content);
    return [{ kind: "write", file, content }];
  }
  const { file, content } = await readWorkspaceText(ctx, op.path);
  if (op.kind === "delete") return [{ kind: "delete", file }];
  const updated = applyHunks(file.relativePath, content, op.hunks);
  if (!op.moveTo) {
    assertWritable(ctx, file.relativePath, updated);
    return [{ kind: "write", file, content: updated }];
  }
  const target = await resolveWorkspacePath(ctx.workspaceDir, op.moveTo, { forWrite: true });
  if (target.exists)
    throw new AppError("INVALID_ARGUMENTS", `cannot move ${file.relativePath} to ${target.relativePath}: it exists`);
  assertWritable(ctx, target.relativePath, updated);
  return [
    { kind: "write", file: target, content: updated },
    { kind: "delete", file },
  ];
}

export const applyPatchTool = defineBuiltinTool({
  name: "apply_patch",
  description:
    "Add, update, move or delete workspace files with one patch. All hunks are checked first; if any fails, nothing is changed.",
  group: "code",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const ctx = getToolContext(options);
    const ops = parsePatch(input.patch);
    // Every operation is resolved, read, matched and size-checked before the first write.
    const changes: PlannedChange[] = [];
    for (const op of ops) changes.push(...(await plan(ctx, op)));
    for (const change of changes) assertNotRepositoryMetadata(change.file);
    const touched = changes.map((c) => c.file.absolutePath);
    const duplicate = touched.find((p, i) => touched.indexOf(p) !== i);
    if (duplicate !== undefined) {
      const rel = changes.find((c) => c.file.absolutePath === duplicate)!.file.relativePath;
      throw new AppError("INVALID_ARGUMENTS", `the patch changes ${rel} more than once; combine those changes`);
    }
    for (const change of changes) {
      if (change.kind === "write") await writeResolvedText(change.file, change.content);
      else await deleteResolvedFile(change.file);
    }
    return {
      added: ops.filter((o) => o.kind === "add").map((o) => o.path),
      updated: ops.filter((o) => o.kind === "update").map((o) => (o.kind === "update" && o.moveTo) || o.path),
      deleted: ops.filter((o) => o.kind === "delete").map((o) => o.path),
    };
  },
});
