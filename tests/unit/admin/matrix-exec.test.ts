// The exec cell follows the exec settings through decideExec, the function the execution gate uses per command.
import { describe, expect, it } from "vitest";
import { buildPolicyMatrix, execCellNote, type MatrixContext } from "@/lib/admin/matrix";
import { decideExec } from "@/lib/policy";
import { doc, TOOLS } from "./fixtures";

const admin: MatrixContext = { roles: ["member", "owner", "admin"], senderIsOwner: true, provider: "openai" };

function execCell(document: unknown, mode: "chat_safe" | "coding" = "coding") {
  const matrix = buildPolicyMatrix({ context: admin, document: doc(document), tools: TOOLS });
  const row = matrix.groups.flatMap((g) => g.rows).find((r) => r.name === "exec");
  if (!row) throw new Error("no exec row");
  return row.cells[mode];
}

describe("exec cells of the matrix", () => {
  it("default settings (allowlist, on-miss): some commands wait, so the cell is ask with the reason", () => {
    const cell = execCell({});
    expect(cell).toMatchObject({ status: "ask", layer: "exec", execScope: "some" });
    expect(cell.reason).toMatch(/not covered by an exec allowlist rule/);
    expect(cell.rule).toBe("exec.security: allowlist, exec.ask: on-miss");
  });

  it("sandbox mode (a new install's default) names the mode: commands run in the sandbox, escalations wait", () => {
    const cell = execCell({ version: 2 });
    expect(cell).toMatchObject({
      status: "allowed",
      layer: "exec",
      execScope: "some",
      rule: "exec.security: sandbox, exec.ask: on-miss",
    });
    expect(cell.reason).toMatch(
      /Sandbox mode: every command runs in the sandbox without an owner.*exec\.host.*wait for an owner's approval/,
    );
    expect(execCell({ version: 2, exec: { askRules: ["rm *"], ask: "off" } }).reason).toMatch(
      /exec\.askRules \(1\).*are refused \(ask: off\)/,
    );
  });

  it("ask: always makes every command wait", () => {
    const cell = execCell({ exec: { ask: "always", security: "full" } });
    expect(cell).toMatchObject({ status: "ask", execScope: "every" });
    expect(cell.reason).toMatch(/Every command waits/);
  });

  it("security: full with ask: on-miss or off runs every command: allowed", () => {
    expect(execCell({ exec: { security: "full", ask: "on-miss" } }).status).toBe("allowed");
    expect(execCell({ exec: { security: "allowlist", ask: "off" } }).status).toBe("allowed");
  });

  it("security: deny refuses every command: denied by the exec settings", () => {
    expect(execCell({ exec: { security: "deny" } })).toMatchObject({
      status: "denied",
      layer: "exec",
      errorCode: "POLICY_DENIED",
    });
  });

  it("a layer that removes exec still decides: the exec settings only speak for calls the layers let through", () => {
    expect(execCell({ tools: { deny: ["exec"] } })).toMatchObject({ status: "denied", layer: "global" });
    expect(execCell({}, "chat_safe")).toMatchObject({ status: "denied", layer: "mode" });
  });

  it("agrees with decideExec for every combination of security and ask", () => {
    for (const security of ["deny", "sandbox", "allowlist", "full"] as const) {
      for (const ask of ["off", "on-miss", "always"] as const) {
        const settings = { security, ask };
        const verdicts = [true, false].map(
          (satisfied) => decideExec({ settings, analysis: { ok: true }, coverage: { satisfied } }).action,
        );
        const note = execCellNote(settings);
        const inSandbox = security === "sandbox" && verdicts[0] === "allow" ? "allowed" : undefined;
        const expected =
          verdicts.includes("ask") && verdicts[0] !== "deny" ? "ask" : verdicts[0] === "deny" ? "denied" : inSandbox;
        expect(note?.status, `${security}/${ask}`).toBe(expected);
      }
    }
  });
});
