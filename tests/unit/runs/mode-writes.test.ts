// Rows B3/B4 of docs/requirements.md as code checks: the session mode has exactly one writer (changeSessionMode, a permitted and
// audited user action), nothing on the model's side of the loop can reach it, and a model that asks for a
// mode tool gets TOOL_NOT_FOUND. (The stored mode staying unchanged is proved against a real DB in
// tests/integration/agent-loop.test.ts.)
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planOfflineReply } from "@/lib/runs/offline-model";
import { checkToolCall } from "@/lib/runs/gate";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { policyFor } from "./support/policy";

const ROOT = path.resolve(__dirname, "../../..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated" && entry.name !== "node_modules") out.push(...sourceFiles(rel));
    } else if (/\.(ts|tsx)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

const files = [...sourceFiles("app"), ...sourceFiles("lib")].map((file) => ({
  file,
  text: fs.readFileSync(path.join(ROOT, file), "utf8"),
}));

describe("B3/D8 one writer of ChatSession.mode", () => {
  it("finds the source tree (the scan is not vacuous)", () => {
    expect(files.some((f) => f.file === path.join("lib", "sessions", "access.ts"))).toBe(true);
    expect(files.length).toBeGreaterThan(50);
  });

  it("only lib/db/sessions.ts updates chatSession rows with a mode field", () => {
    const writers = files
      .filter(({ text }) =>
        /chatSession\s*\.\s*(update|updateMany|upsert)\s*\(\s*\{[^]*?data\s*:\s*\{[^}]*\bmode\b/.test(text),
      )
      .map((f) => f.file);
    expect(writers).toEqual([path.join("lib", "db", "sessions.ts")]);
  });

  it("no raw SQL writes the mode column", () => {
    const raw = files.filter(({ text }) => /UPDATE\s+"?ChatSession"?[^;]*\bmode\b/i.test(text)).map((f) => f.file);
    expect(raw).toEqual([]);
  });

  it("updateSessionMode is called only by changeSessionMode in lib/sessions/access.ts", () => {
    const callers = files
      .filter(({ file, text }) => file !== path.join("lib", "db", "sessions.ts") && /updateSessionMode\s*\(/.test(text))
      .map((f) => f.file);
    expect(callers).toEqual([path.join("lib", "sessions", "access.ts")]);
    const sessions = files.find((f) => f.file === path.join("lib", "sessions", "access.ts"))!.text;
    const body = sessions.slice(sessions.indexOf("export async function changeSessionMode"));
    expect(body).toMatch(/grantedModesFor\(user\)/);
    expect(body).toMatch(/appendAudit\(\{\s*action: "session\.mode_changed"/);
    expect(body.indexOf("granted.includes(mode)")).toBeLessThan(body.indexOf("updateSessionMode("));
  });

  it("changeSessionMode is reachable only from the session PATCH route and server code outside the agent loop", () => {
    const users = files
      .filter(({ text }) => /changeSessionMode\s*\(/.test(text))
      .map((f) => f.file)
      .filter((f) => f !== path.join("lib", "sessions", "access.ts"));
    expect(users.length).toBeGreaterThan(0);
    for (const file of users) expect(file.startsWith("app")).toBe(true);
  });
});

describe("B4 the model cannot change the mode", () => {
  const loopFiles = [
    "engine.ts",
    "calls.ts",
    "gate.ts",
    "hooks.ts",
    "prompt.ts",
    "offline-model.ts",
    "transcript.ts",
    "services.ts",
    "recorder.ts",
    "resume.ts",
    "subagents.ts",
  ].map((f) => path.join("lib", "runs", f));

  it("the loop and everything it hands the model import no mode writer", () => {
    for (const file of loopFiles) {
      const text = files.find((f) => f.file === file)?.text;
      expect(text, file).toBeDefined();
      expect({ file, writes: /updateSessionMode|changeSessionMode/.test(text!) }).toEqual({ file, writes: false });
    }
  });

  it("no built-in tool is a mode switch", () => {
    const names = getToolRegistry()
      .all()
      .map((t) => t.name);
    expect(names.filter((n) => /mode/.test(n))).toEqual([]);
  });

  it.each(["set_mode", "mode", "switch_mode"])(
    "the offline model's /tool %s call is TOOL_NOT_FOUND at the gate",
    (name) => {
      const reply = planOfflineReply({
        prompt: [{ role: "user", content: [{ type: "text", text: `/tool ${name} {"mode":"coding"}` }] }],
        tools: [],
      });
      expect(reply.calls).toHaveLength(1);
      const call = reply.calls[0]!;
      for (const mode of ["chat_safe", "coding"] as const) {
        const { policy, grantedModes } = policyFor(mode);
        const verdict = checkToolCall({
          policy,
          registry: getToolRegistry(),
          toolName: call.toolName,
          input: JSON.parse(call.input),
          grantedModes,
        });
        expect(verdict).toMatchObject({ verdict: "deny", denial: { error_code: "TOOL_NOT_FOUND", tool_name: name } });
      }
    },
  );
});
