// A member's own way back: the commands whose trash is kept in their workspace, and putting one command's
// deletions and overwrites back (lib/tools/workspace-changes.ts). Only ever the signed-in user's own workspace.
import path from "node:path";
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { inWorkspaceTurn, listRestorable, restoreCommand } from "./workspace-changes";
import { ensureWorkspace } from "./workspace";

async function ownWorkspace(userId: string): Promise<string> {
  return ensureWorkspace(path.join(loadConfig().workspaceRoot, userId));
}

export async function listOwnRestorable({ userId }: { userId: string }) {
  return listRestorable(await ownWorkspace(userId));
}

export async function restoreOwnCommand({ userId, restoreId }: { userId: string; restoreId: string }) {
  const workspace = await ownWorkspace(userId);
  const known = (await listRestorable(workspace)).some((r) => r.restoreId === restoreId);
  if (!known)
    throw new AppError(
      "NOT_FOUND",
      "there is no kept trash with this restore id (only the last 20 commands' trash is kept)",
    );
  return inWorkspaceTurn(workspace, () => restoreCommand(workspace, restoreId));
}
