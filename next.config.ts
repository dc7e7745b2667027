import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and driver packages stay as runtime requires instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg", "bcryptjs"],
  poweredByHeader: false,
  // The build checks the app only; `npm test` type-checks everything (tests, bench, scripts) with tsconfig.json.
  typescript: { tsconfigPath: "tsconfig.app.json" },
  typedRoutes: false,
};

export default nextConfig;
