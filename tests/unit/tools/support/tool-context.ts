// Real temp workspaces and a small in-memory ToolServices for tool tests. The services stand in for the
// database-backed implementation the agent loop provides; the tools under test are the real ones.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { ToolRunContext, ToolServices } from "@/lib/tools/context";
import { ensureWorkspace } from "@/lib/tools/workspace";
import type { ToolExecuteOptions } from "@/lib/policy/types";

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp directory holding `workspace/` plus room beside it for things that must stay outside. */
export async function makeSandboxDirs(): Promise<{ base: string; workspace: string; outside: string }> {
  const base = await mkdtemp(path.join(os.tmpdir(), "toolgate-tools-"));
  created.push(base);
  const workspace = await ensureWorkspace(path.join(base, "workspace"));
  const outside = await ensureWorkspace(path.join(base, "outside"));
  return { base, workspace, outside };
}

export function inMemoryServices(): ToolServices {
  return {
    async searchMemory({ query, limit }) {
      const all = [
        { id: "m1", title: "Deploy notes", snippet: "deploy with blue/green", source: "note" as const },
        {
          id: "m2",
          title: "Chat about deploys",
          snippet: "we talked about deploy windows",
          source: "transcript" as const,
        },
      ];
      return all.filter((m) => m.snippet.includes(query)).slice(0, limit);
    },
    async getMemory({ id }) {
      return id === "m1" ? { id, title: "Deploy notes", content: "deploy with blue/green" } : null;
    },
    async listSessions({ limit }) {
      return [
        { id: "s2", title: "Second", mode: "coding", updatedAt: "2026-11-22T10:00:00.000Z" },
        { id: "s1", title: "First", mode: "chat_safe", updatedAt: "2026-11-21T10:00:00.000Z" },
      ].slice(0, limit);
    },
    async getSessionHistory({ sessionId, limit }) {
      if (sessionId !== "s1") return null;
      return [
        { role: "user", content: "hello", createdAt: "2026-11-21T10:00:00.000Z" },
        { role: "assistant", content: "hi", createdAt: "2026-11-21T10:00:01.000Z" },
      ].slice(-limit);
    },
  };
}

export function makeContext(workspaceDir: string, overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  return {
    userId: "u1",
    sessionId: "s1",
    workspaceDir,
    limits: { maxReadBytes: 512 * 1024, maxWriteBytes: 2 * 1024 * 1024 },
    exec: { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 },
    services: inMemoryServices(),
    ...overrides,
  };
}

let callCounter = 0;
export function callOptions(context: ToolRunContext, abortSignal?: AbortSignal): ToolExecuteOptions {
  callCounter += 1;
  return { callId: `call_test_${callCounter}`, context, abortSignal };
}
