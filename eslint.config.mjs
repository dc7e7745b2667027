import coreWebVitals from "eslint-config-next/core-web-vitals";
import typescript from "eslint-config-next/typescript";

const config = [
  { ignores: ["lib/generated/**", ".next/**", "data/**", "node_modules/**", "test-results/**", "next-env.d.ts"] },
  ...coreWebVitals,
  ...typescript,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // lib/policy is pure: plain data in, decisions out.
    files: ["lib/policy/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["next", "next/*", "react", "react-dom", "@prisma/*", "ai", "@ai-sdk/*", "@/lib/db", "@/lib/db/*", "@/lib/generated/*"] },
      ],
    },
  },
];

export default config;
