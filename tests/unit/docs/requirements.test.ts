// docs/requirements.md and the tests stay in step. A row is proven by a test whose name starts with its id; a row
// naming no test (and not a documented deviation), a row whose test is gone or renamed, an id no row has, or a file
// citing a row without being listed on it fails here. This checks that the tests exist by name; running them (and
// so whether they pass) is the rest of npm test.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../../..");
const doc = fs.readFileSync(path.join(ROOT, "docs/requirements.md"), "utf8");
const ID = "[ABCDEFLOPSTY]\\d{1,2}";
const REFERENCES = [
  "tool-modes-test-plan.md",
  "tool-modes-design.md",
  "layered-tool-policy.md",
  "policy-pipeline-and-exec-approvals.md",
  "system-tool-policy-story.md",
];

type Row = { id: string; section: string; files: string[]; deviation?: string };

/** Rows of the page: the first cell is the id, the last the covering test files or `deviation: why`. */
function parseRows(text: string): { rows: Row[]; sections: Map<string, string> } {
  const rows: Row[] = [];
  const sections = new Map<string, string>();
  let section = "";
  for (const line of text.split("\n")) {
    const heading = /^## ([A-Z])\. /.exec(line);
    if (heading) {
      section = heading[1]!;
      sections.set(section, "");
      continue;
    }
    if (section) sections.set(section, `${sections.get(section)}${line}\n`);
    const m = new RegExp(`^\\| (${ID}) \\|.*\\|([^|]*)\\|$`).exec(line);
    if (!m) continue;
    const last = m[2]!.trim();
    const deviation = /^deviation: (.+)/.exec(last)?.[1];
    rows.push({
      id: m[1]!,
      section,
      files: deviation
        ? []
        : last
            .split(",")
            .map((f) => f.trim())
            .filter(Boolean),
      deviation,
    });
  }
  return { rows, sections };
}
const { rows, sections } = parseRows(doc);
const rowById = new Map(rows.map((r) => [r.id, r]));

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(rel);
    return /\.(test|spec)\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/**
 * Test names that start with row ids: the first string of an `it`/`test`/`describe` call (also `.each(...)(...)`,
 * `.concurrent`, `.sequential`), when it starts with `ID` or `ID/ID/...` and a space. Skipped and todo tests do not
 * count: they prove nothing.
 */
export function namedIds(text: string): Set<string> {
  const ids = new Set<string>();
  const call =
    /\b(it|test|describe)((?:\.\w+)*)\s*(?:\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?\s*\(\s*(["'`])([^"'`\n]*)/g;
  for (const m of text.matchAll(call)) {
    const modifiers = m[2]!.split(".").filter(Boolean);
    if (modifiers.some((mod) => mod === "skip" || mod === "todo" || mod === "fails")) continue;
    if (
      modifiers.length > 0 &&
      !modifiers.includes("each") &&
      !modifiers.every((mod) => mod === "only" || mod === "concurrent" || mod === "sequential")
    )
      continue;
    const lead = new RegExp(`^((?:${ID})(?:/(?:${ID}))*)(?=\\s)`).exec(m[4]!);
    for (const id of lead?.[1]?.split("/") ?? []) ids.add(id);
  }
  return ids;
}

/**
 * Every id a file cites: in test names, and in comments ("rows B5, B6 of docs/requirements.md"), so a stale
 * comment is caught too. Other strings are data (an agent named "A1" cites nothing).
 */
function mentionedIds(text: string): Set<string> {
  const comments = [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:"'`\w])\/\/[^\n]*/g)].map((m) => m[0]).join("\n");
  const inComments = [...comments.matchAll(new RegExp(`(?<![\\w.%-])(${ID})(?![\\w%-])`, "g"))].map((m) => m[1]!);
  return new Set([...inComments, ...namedIds(text)]);
}

const files = testFiles("tests").filter((f) => f !== "tests/unit/docs/requirements.test.ts");
const texts = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), "utf8")]));
const named = new Map(files.map((f) => [f, namedIds(texts.get(f)!)]));
const mentioned = new Map(files.map((f) => [f, mentionedIds(texts.get(f)!)]));

describe("docs/requirements.md", () => {
  it("has the tool-modes test plan's matrix rows A1–A11, B1–B8, C1–C4, F1–F5, E1–E6, S1–S5, O1–O4", () => {
    const want = (letter: string, n: number) => Array.from({ length: n }, (_, i) => `${letter}${i + 1}`);
    const matrix = [
      ...want("A", 11),
      ...want("B", 8),
      ...want("C", 4),
      ...want("F", 5),
      ...want("E", 6),
      ...want("S", 5),
      ...want("O", 4),
    ];
    expect(rows.filter((r) => "ABCEFOS".includes(r.id[0]!)).map((r) => r.id)).toEqual(matrix);
  });

  it("numbers every section's rows 1, 2, 3, ... once each, in a section of their own letter", () => {
    const problems: string[] = [];
    const byLetter = new Map<string, number[]>();
    for (const row of rows) {
      if (row.section !== row.id[0]) problems.push(`${row.id} is in section ${row.section}`);
      byLetter.set(row.id[0]!, [...(byLetter.get(row.id[0]!) ?? []), Number(row.id.slice(1))]);
    }
    for (const [letter, numbers] of byLetter) {
      const expected = numbers.map((_, i) => i + 1);
      if (JSON.stringify(numbers) !== JSON.stringify(expected)) problems.push(`${letter}: ${numbers.join(",")}`);
    }
    expect(problems).toEqual([]);
  });

  it("names its source document in every section, and every one of the five documents has rows", () => {
    for (const [letter, body] of sections)
      expect(
        REFERENCES.some((r) => body.includes(r)),
        `section ${letter}`,
      ).toBe(true);
    const sourced = new Set(
      [...sections.values()].flatMap((body) => REFERENCES.filter((r) => body.includes(`Source: \`${r}\``))),
    );
    expect([...sourced].sort()).toEqual([...REFERENCES].sort());
  });

  it("every row has a test or is a deviation that says why", () => {
    const problems = rows
      .filter((r) => r.files.length === 0 && !(r.deviation && r.deviation.length >= 10))
      .map((r) => r.id);
    expect(problems).toEqual([]);
  });

  it("every file a row names has a test (not skipped) whose name starts with the row's id", () => {
    const problems: string[] = [];
    for (const row of rows) {
      for (const file of row.files) {
        if (!named.has(file)) problems.push(`${row.id}: ${file} is not a test file`);
        else if (!named.get(file)!.has(row.id)) problems.push(`${row.id}: no test in ${file} is named "${row.id} ..."`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("every id a test file mentions is a row, and a row with tests is not a deviation without tests", () => {
    const unknown = [...mentioned].flatMap(([file, ids]) =>
      [...ids].filter((id) => !rowById.has(id)).map((id) => `${file}: ${id}`),
    );
    expect(unknown).toEqual([]);
    const deviations = [...named].flatMap(([file, ids]) =>
      [...ids].filter((id) => rowById.get(id)?.deviation).map((id) => `${file}: ${id}`),
    );
    expect(deviations).toEqual([]);
  });

  it("every test file mentioning a row is listed on that row", () => {
    const unlisted = [...mentioned].flatMap(([file, ids]) =>
      [...ids]
        .filter((id) => rowById.get(id) && !rowById.get(id)!.deviation && !rowById.get(id)!.files.includes(file))
        .map((id) => `${id}: ${file}`),
    );
    expect(unlisted).toEqual([]);
  });
});

describe("the test-name reader", () => {
  it("reads ids from it, test, describe and .each titles, and ignores skipped tests, other calls and mid-title ids", () => {
    const source = [
      'it("A1 one", () => {});',
      "describe('B2/S3 two', () => {});",
      'it.each(["x", "y"] as const)("F4 %s", () => {});',
      "it.each(LIST.map((t) => [t.name, t] as const))(`D4 %s declares`, () => {});",
      'test.concurrent("L1 four", async () => {});',
      'it.skip("A2 skipped", () => {});',
      'it.todo("A3 later");',
      'expect("A4 not a test").toBe(1);',
      'it("about A5 in the middle", () => {});',
      'it("A66x not an id", () => {});',
    ].join("\n");
    expect([...namedIds(source)].sort()).toEqual(["A1", "B2", "D4", "F4", "L1", "S3"]);
  });
});
