// docs/requirements.md and the tests that cite its rows stay in step: a test citing a row that is not there, a row
// no test covers, or a row naming a file that does not cite it fails here.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../../..");
const doc = fs.readFileSync(path.join(ROOT, "docs/requirements.md"), "utf8");
const ID = "[ABCEFOS]\\d{1,2}";

/** Rows of the page: id → the test files its "covered by" column names. */
const rows = new Map<string, string[]>();
for (const line of doc.split("\n")) {
  const m = new RegExp(`^\\| (${ID}) \\| .+ \\| ([^|]+) \\|$`).exec(line);
  if (m) rows.set(m[1]!, m[2]!.split(",").map((f) => f.trim()));
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(rel);
    return /\.(test|spec)\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Row ids a file cites: in test names, describe titles and comments ("A6/A8", "B7/S3/O3", "(E rows)" excluded). */
function citedIds(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return new Set([...text.matchAll(new RegExp(`(?<![\\w.%-])(${ID})(?![\\w%-])`, "g"))].map((m) => m[1]!));
}

const files = testFiles("tests").filter((f) => f !== "tests/unit/docs/requirements.test.ts");
const citations = new Map(files.map((f) => [f, citedIds(f)]));

describe("docs/requirements.md", () => {
  it("lists the rows A1–A11, B1–B8, C1–C4, F1–F5, E1–E6, S1–S5, O1–O4", () => {
    const want = (letter: string, n: number) => Array.from({ length: n }, (_, i) => `${letter}${i + 1}`);
    const all = [...want("A", 11), ...want("B", 8), ...want("C", 4), ...want("F", 5), ...want("E", 6), ...want("S", 5), ...want("O", 4)];
    expect([...rows.keys()].sort()).toEqual(all.sort());
  });

  it("every row id a test cites is a row of the page", () => {
    const unknown = [...citations].flatMap(([file, ids]) => [...ids].filter((id) => !rows.has(id)).map((id) => `${file}: ${id}`));
    expect(unknown).toEqual([]);
  });

  it("every row is covered, and each file a row names exists and cites that row", () => {
    const problems: string[] = [];
    for (const [id, covering] of rows) {
      if (!covering.length) problems.push(`${id}: no test named`);
      for (const file of covering) {
        if (!citations.has(file)) problems.push(`${id}: ${file} is not a test file`);
        else if (!citations.get(file)!.has(id)) problems.push(`${id}: ${file} does not cite ${id}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("every test file citing a row is listed on that row", () => {
    const unlisted = [...citations].flatMap(([file, ids]) => [...ids].filter((id) => rows.has(id) && !rows.get(id)!.includes(file)).map((id) => `${id}: ${file}`));
    expect(unlisted).toEqual([]);
  });
});
