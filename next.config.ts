import type { NextConfig } from "next";
import { COMMON_HEADERS, LOCKED_CSP } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  // Native and driver packages stay as runtime requires instead of being bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "pg",
    "@prisma/adapter-pg",
    "bcryptjs",
    "web-tree-sitter",
    "tree-sitter-bash",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  poweredByHeader: false,
  // The build checks the app only; `npm test` type-checks everything (tests, bench, scripts and the route types
  // the build writes) with tsconfig.json, and tells its build to skip this second check.
  typescript: {
    tsconfigPath: "tsconfig.app.json",
    ignoreBuildErrors: process.env.TOOLGATE_BUILD_TYPES_CHECKED === "1",
  },
  typedRoutes: false,
  experimental: {
    // Server actions are the only bodies the proxy sees (it skips /api); it buffers at most this much.
    proxyClientMaxBodySize: "1mb",
  },
  async headers() {
    return [
      { source: "/:path*", headers: COMMON_HEADERS },
      { source: "/api/:path*", headers: [LOCKED_CSP] },
      { source: "/_next/:path*", headers: [LOCKED_CSP] },
      { source: "/oauth/:endpoint(token|register|revoke)", headers: [LOCKED_CSP] },
    ];
  },
};

export default nextConfig;
