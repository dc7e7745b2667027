import coreWebVitals from "eslint-config-next/core-web-vitals";
import typescript from "eslint-config-next/typescript";

// The layering the README describes, enforced. eslint-config-next already registers eslint-plugin-import
// (as `import`) with the TypeScript resolver, so `import/no-cycle` follows the `@/` paths.
const noDb = {
  regex: "^(@/|(\\.\\./)+)lib/(db|generated)(/|$)",
  message: "Database access lives in lib/db; call a lib/<domain> function instead.",
};
const noApp = {
  regex: "^(@/|(\\.\\./)+)app(/|$)",
  message: "components never import app/: the page passes server actions and data down as props.",
};
const dynamicImport = {
  selector: "ImportExpression",
  message:
    "No dynamic import in lib/: import statically. A dynamic import hides an import cycle from import/no-cycle; break the cycle instead.",
};

const config = [
  { ignores: ["lib/generated/**", ".next/**", "data/**", "node_modules/**", "test-results/**", "next-env.d.ts"] },
  ...coreWebVitals,
  ...typescript,
  {
    // Modules import/no-cycle must not parse: generated Prisma clients (large, and they import nothing of ours)
    // and packages. Parsing them made the rule take most of the lint time.
    settings: { "import/ignore": ["node_modules", "lib/generated/"] },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Cycles among the app's own modules. Tests and tooling import the app but nothing imports them, so they
    // cannot close a cycle; leaving them out halves the rule's time.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.ts", "instrumentation.ts"],
    rules: { "import/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    files: ["lib/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", dynamicImport] },
  },
  {
    // lib/policy is pure: plain data in, decisions out.
    files: ["lib/policy/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            "next",
            "next/*",
            "react",
            "react-dom",
            "@prisma/*",
            "ai",
            "@ai-sdk/*",
            "@/lib/db",
            "@/lib/db/*",
            "@/lib/generated/*",
          ],
        },
      ],
    },
  },
  {
    // lib/db is the bottom layer: it may use configuration, errors, logging, per-process state, canonical JSON, text sanitising and lib/policy's
    // type vocabulary (pure, and it never imports lib/db, so no cycle can form), never a domain folder.
    files: ["lib/db/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^@/lib/(?!(db|generated|config|errors|log|process-singleton|canonical-json|text-sanitize|policy/types)(/|$))",
              message:
                "lib/db imports no domain folder (agent, runs, tools, approvals, admin, auth, http, events, policy logic): the domain calls lib/db, never the reverse.",
            },
            {
              group: ["@/app", "@/app/*", "@/components", "@/components/*"],
              message: "lib/db never imports app/ or components/.",
            },
            {
              regex: "^\\.\\./",
              message: "lib/db imports other lib folders through @/lib/..., so the layering rule can see them.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["app/**/*.ts", "app/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ ...noDb, message: "app/ never imports lib/db: route handlers and pages call lib/<domain>." }] },
      ],
    },
  },
  {
    files: ["components/**/*.ts", "components/**/*.tsx"],
    rules: { "no-restricted-imports": ["error", { patterns: [noApp, noDb] }] },
  },
];

export default config;

// Issue 11, run engine layout: approvals, admin and sessions never import the run engine (they publish events or are
// handed a function). lib/db's own rule above already keeps every domain out of the database layer (a second
// lib/db block here would replace it: flat config does not merge one rule's options).
// tests/unit/runs/layout.test.ts checks that lib/runs itself has no import cycle and no `import()` to dodge one.
config.push({
  files: ["lib/approvals/**/*.ts", "lib/admin/**/*.ts", "lib/sessions/**/*.ts"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            group: ["@/lib/runs", "@/lib/runs/*"],
            message:
              "approvals, admin and sessions never import the run engine: publish an event or receive a function.",
          },
        ],
      },
    ],
  },
});
