// Drives the real agent loop (runTurn) against a real, freshly migrated database: SQLite always, and
// PostgreSQL when TEST_DATABASE_URL_PG is set. lib/config caches DATABASE_URL on first use, so each target
// sets it first and imports lib modules afresh (callers vi.resetModules() between targets).
import fs from "node:fs";
import { afterAll, beforeAll, vi } from "vitest";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { UIMessageChunk } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { databaseTargets, prepareDatabase } from "./databases";
export { namesInToolingLayer } from "./prompt-names";

export type DbTarget = ReturnType<typeof databaseTargets>[number];
export { databaseTargets as dbTargets };

export async function loadAgent(url: string) {
  prepareDatabase(url);
  process.env.DATABASE_URL = url;
  const runTurnModule = await import("@/lib/runs/engine");
  const db = (await import("@/lib/db/client")).getDb();
  const users = await import("@/lib/db/users");
  const messages = await import("@/lib/db/messages");
  const sessions = await import("@/lib/db/sessions");
  const policies = await import("@/lib/db/policies");
  const { createOfflineModel } = await import("@/lib/runs/offline-model");
  // The same root lib/config uses when a test set WORKSPACE_ROOT (turns hosted by lib/runs/host.ts read it there).
  const workspaceRoot = process.env.WORKSPACE_ROOT ?? fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));

  async function user(email: string) {
    const row = await users.findUserByEmail({ email });
    const full = row && (await users.getUserWithRoles({ userId: row.id }));
    if (!full) throw new Error(`no demo user ${email}`);
    return full;
  }

  /** A session with the raw stored mode given, exactly as a hand-edited row would hold it. */
  async function session(ownerId: string, mode = "chat_safe") {
    return sessions.createSession({ ownerId, mode });
  }

  async function setPolicy(document: unknown) {
    const base = await policies.getPolicyVersionNumber();
    const saved = await policies.insertPolicyVersion({
      baseVersion: base,
      document,
      createdById: null,
      comment: "test",
    });
    if (!saved.ok) throw new Error("policy version race in test");
  }

  /** Appends the user's message (as POST /api/chat does) and runs one turn, collecting every chunk. */
  async function turn(args: {
    sessionId: string;
    user: Awaited<ReturnType<typeof user>>;
    text: string;
    model?: LanguageModelV3;
    provider?: string;
    abortSignal?: AbortSignal;
    hooks?: import("@/lib/runs/hooks").ToolHooks;
    execLimits?: { timeoutMs: number; maxOutputBytes: number };
  }) {
    await messages.appendMessage({ sessionId: args.sessionId, message: { role: "user", content: args.text } });
    const chunks: UIMessageChunk[] = [];
    const model = args.model ?? createOfflineModel();
    const result = await runTurnModule.runTurn({
      sessionId: args.sessionId,
      user: args.user,
      model: { model, info: { provider: args.provider ?? "offline", model: model.modelId } },
      emit: (c) => chunks.push(c),
      abortSignal: args.abortSignal,
      hooks: args.hooks,
      workspaceRoot,
      execLimits: args.execLimits,
    });
    const transcript = await messages.listMessages({ sessionId: args.sessionId });
    return { result, chunks, transcript };
  }

  return { db, runTurnModule, user, session, setPolicy, turn, workspaceRoot, messages, sessions, createOfflineModel };
}

export type Agent = Awaited<ReturnType<typeof loadAgent>>;
export type AgentUser = Awaited<ReturnType<Agent["user"]>>;

/**
 * The lifecycle every loop test file needs for one database target: a fresh database with the lib modules
 * loaded on it and the demo member and owner; afterwards the connection closed, the modules reset (lib/config
 * caches DATABASE_URL) and the database dropped. Fields are filled in beforeAll.
 */
export function useAgentOnDatabase(make: DbTarget[1]): { agent: Agent; member: AgentUser; owner: AgentUser } {
  const h = {} as { agent: Agent; member: AgentUser; owner: AgentUser };
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    h.agent = await loadAgent(target.url);
    h.member = await h.agent.user("member@example.com");
    h.owner = await h.agent.user("owner@example.com");
  });
  afterAll(async () => {
    await h.agent?.db.$disconnect();
    vi.resetModules();
    await drop?.();
  });
  return h;
}

export function finishPart(reason: "tool-calls" | "stop"): LanguageModelV3StreamPart {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: reason },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
  };
}

export function toolCallPart(toolCallId: string, toolName: string, input: string): LanguageModelV3StreamPart {
  return { type: "tool-call", toolCallId, toolName, input };
}

export function textParts(text: string, id = "t0"): LanguageModelV3StreamPart[] {
  return [
    { type: "text-start", id },
    { type: "text-delta", id, delta: text },
    { type: "text-end", id },
  ];
}

/**
 * An adversarial model: step i streams steps[i] (then plain text once the script runs out), so a test can
 * make it call hidden tools, send malformed arguments or flood a step. Records every call's options.
 */
export function scriptedModel(steps: LanguageModelV3StreamPart[][]): MockLanguageModelV3 {
  let index = 0;
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: async () => {
      const parts = steps[index++] ?? [...textParts("done after tools"), finishPart("stop")];
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  });
  return model;
}

/** The text of the system message and the tool names a model call was given. */
export function seenBy(options: MockLanguageModelV3["doStreamCalls"][number]): { system: string; tools: string[] } {
  const system = options.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content as string)
    .join("\n");
  return { system, tools: (options.tools ?? []).map((t) => t.name) };
}
