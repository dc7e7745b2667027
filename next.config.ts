import type { NextConfig } from "next";

// Headers on every response. Pages get their CSP (with a nonce) from proxy.ts; everything the proxy does
// not render (API JSON and streams, static files, prefetches) gets a CSP that allows nothing and no framing.
const common = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];
// `sandbox` too: a response opened as a page (an MCP resource, a JSON body) runs nothing and has no origin.
const lockedCsp = { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox" };

const nextConfig: NextConfig = {
  // Native and driver packages stay as runtime requires instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg", "bcryptjs", "web-tree-sitter", "tree-sitter-bash"],
  poweredByHeader: false,
  // The build checks the app only; `npm test` type-checks everything (tests, bench, scripts) with tsconfig.json.
  typescript: { tsconfigPath: "tsconfig.app.json" },
  typedRoutes: false,
  experimental: {
    // Server actions are the only bodies the proxy sees (it skips /api); it buffers at most this much.
    proxyClientMaxBodySize: "1mb",
  },
  async headers() {
    return [
      { source: "/:path*", headers: common },
      { source: "/api/:path*", headers: [lockedCsp] },
      { source: "/_next/:path*", headers: [lockedCsp] },
    ];
  },
};

export default nextConfig;
