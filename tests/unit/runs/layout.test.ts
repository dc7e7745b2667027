// The run engine's layout (issue 11): lib/runs has one import direction (no cycle between its files), never
// uses import() to dodge one, and approvals and admin never import it. Read from the source, so a new import
// that breaks the rule fails here even before lint runs.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../../..");
const RUNS = path.join(ROOT, "lib/runs");

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
    );
}

function importsOf(file: string): string[] {
  const source = fs.readFileSync(file, "utf8");
  return [...source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]!);
}

function resolveRuns(from: string, spec: string): string | null {
  const target = spec.startsWith("@/lib/runs/")
    ? path.join(ROOT, spec.slice(2))
    : spec.startsWith("./") || spec.startsWith("../")
      ? path.resolve(path.dirname(from), spec)
      : null;
  if (!target) return null;
  const file = `${target}.ts`;
  return file.startsWith(RUNS) && fs.existsSync(file) ? file : null;
}

describe("lib/runs layout", () => {
  const files = filesUnder(RUNS);

  it("has no import cycle between its files", () => {
    const graph = new Map(
      files.map((f) => [
        f,
        importsOf(f)
          .map((s) => resolveRuns(f, s))
          .filter((x): x is string => x !== null),
      ]),
    );
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (f: string, trail: string[]) => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        cycles.push([...trail.slice(trail.indexOf(f)), f].map((p) => path.relative(ROOT, p)).join(" → "));
        return;
      }
      state.set(f, "open");
      for (const next of graph.get(f) ?? []) visit(next, [...trail, f]);
      state.set(f, "done");
    };
    files.forEach((f) => visit(f, []));
    expect(cycles).toEqual([]);
  });

  it("never loads a module with import() (the old way around the loop)", () => {
    const dynamic = files
      .filter((f) => /\bimport\s*\(/.test(fs.readFileSync(f, "utf8")))
      .map((f) => path.relative(ROOT, f));
    expect(dynamic).toEqual([]);
  });

  it("approvals and admin never import the run engine", () => {
    const offenders = ["lib/approvals", "lib/admin"]
      .flatMap((d) => filesUnder(path.join(ROOT, d)))
      .filter((f) => importsOf(f).some((s) => s === "@/lib/runs" || s.startsWith("@/lib/runs/")));
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it("the detector sees a cycle when there is one (the test can fail)", () => {
    const a = path.join(RUNS, "a.ts");
    const b = path.join(RUNS, "b.ts");
    expect(resolveRuns(a, "./engine")).toBe(path.join(RUNS, "engine.ts"));
    expect(resolveRuns(b, "@/lib/runs/calls")).toBe(path.join(RUNS, "calls.ts"));
    expect(importsOf(path.join(RUNS, "engine.ts"))).toContain("./calls");
  });
});
