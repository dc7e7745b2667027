// Headers on every response (next.config.ts applies them to what Next.js serves; the lean stream handler in
// lib/http/lean-streams.ts sets the same ones itself). Pages get their CSP (with a nonce) from proxy.ts; everything
// the proxy does not render (API JSON and streams, static files, prefetches) gets a CSP that allows nothing and no
// framing.
export const COMMON_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
  {
    key: "Permissions-Policy",
    value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];
// `sandbox` too: a response opened as a page (an MCP resource, a JSON body) runs nothing and has no origin.
export const LOCKED_CSP = {
  key: "Content-Security-Policy",
  value: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox",
};
