// The layering rules of eslint.config.mjs fire where the README says they do, and stay quiet on what is allowed.
// Code is linted as if it were a file in each folder (ESLint's own API, the project's real config).
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it, vi } from "vitest";

// The first lint loads the whole config and its plugins (TypeScript's parser included): on a loaded two-core machine
// that alone took over 30 s.
vi.setConfig({ testTimeout: 180_000 });

const ROOT = path.resolve(__dirname, "../../..");
let eslint: ESLint;
beforeAll(() => {
  // import/no-cycle reads the imported files from disk, which these snippets do not have; it is checked on the
  // real tree by `npm run lint`.
  eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { "import/no-cycle": "off" } } });
});

async function rulesHit(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe("layering rules", () => {
  it.each([
    [
      "components/chat/x.tsx",
      'import { newChatAction } from "@/app/(app)/chat/actions";\nexport const x = newChatAction;\n',
    ],
    [
      "components/chat/x.tsx",
      'import { newChatAction } from "../../app/(app)/chat/actions";\nexport const x = newChatAction;\n',
    ],
    ["components/chat/x.tsx", 'import { getDb } from "@/lib/db/client";\nexport const x = getDb;\n'],
    [
      "app/api/x/route.ts",
      'import { listAllowlistEntries } from "@/lib/db/allowlist";\nexport const x = listAllowlistEntries;\n',
    ],
    ["app/api/x/route.ts", 'import { getDb } from "../../../lib/db/client";\nexport const x = getDb;\n'],
    ["lib/db/x.ts", 'import { checkToolCall } from "@/lib/agent/gate";\nexport const x = checkToolCall;\n'],
    ["lib/db/x.ts", 'import { requireUser } from "@/lib/auth/guards";\nexport const x = requireUser;\n'],
    [
      "lib/db/x.ts",
      'import { resolveEffectiveToolPolicy } from "@/lib/policy";\nexport const x = resolveEffectiveToolPolicy;\n',
    ],
    ["lib/db/x.ts", 'import { Page } from "@/app/page";\nexport const x = Page;\n'],
    ["lib/policy/x.ts", 'import { getDb } from "@/lib/db/client";\nexport const x = getDb;\n'],
    ["lib/policy/x.ts", 'import { streamText } from "ai";\nexport const x = streamText;\n'],
  ])("%s may not import that: %s", async (file, code) => {
    expect(await rulesHit(file, code)).toContain("no-restricted-imports");
  });

  it.each([
    [
      "components/chat/x.tsx",
      'import { ModeBadge } from "./mode-badge";\nimport { cn } from "@/components/icons";\nexport const x = [ModeBadge, cn];\n',
    ],
    [
      "app/api/x/route.ts",
      'import { listExecAllowlist } from "@/lib/approvals/service";\nexport const x = listExecAllowlist;\n',
    ],
    [
      "lib/db/x.ts",
      'import { ROLES } from "@/lib/policy/types";\nimport { AppError } from "@/lib/errors";\nimport { getDb } from "./client";\nexport const x = [ROLES, AppError, getDb];\n',
    ],
  ])("%s may import its own layer and below: %s", async (file, code) => {
    expect(await rulesHit(file, code)).not.toContain("no-restricted-imports");
  });

  it("no dynamic import in lib/ (it hides cycles), but elsewhere it is allowed", async () => {
    const code = 'export async function load() {\n  return (await import("@/lib/errors")).AppError;\n}\n';
    expect(await rulesHit("lib/tools/x.ts", code)).toContain("no-restricted-syntax");
    expect(await rulesHit("instrumentation.ts", code)).not.toContain("no-restricted-syntax");
  });

  it("`any` is an error everywhere", async () => {
    for (const file of ["lib/tools/x.ts", "app/api/x/route.ts", "tests/unit/x.test.ts"]) {
      expect(await rulesHit(file, "export const f = (x: any) => x;\n")).toContain("@typescript-eslint/no-explicit-any");
    }
  });
});
