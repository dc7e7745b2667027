import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and driver packages stay as runtime requires instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg", "bcryptjs"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
