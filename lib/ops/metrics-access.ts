import "server-only";
// Who may read /metrics: a scraper on this machine (loopback, as the app's server decided the client address
// after TRUST_PROXY_HOPS, so a request through nginx counts as its real client, not as nginx's loopback), or
// anyone presenting METRICS_TOKEN as a bearer token. Without the app's server (`next start`) the address is
// whatever the client claimed, so only the token opens the endpoint then.
import { createHash, timingSafeEqual } from "node:crypto";
import { clientAddress } from "@/lib/auth/throttle";
import { loadConfig } from "@/lib/config";
import { processSlots } from "@/lib/process-singleton";

export type MetricsAccess = { ok: true } | { ok: false; status: 401 | 403; message: string };

const globalForServer = processSlots<{ toolgateClientAddressDecided?: boolean }>();

export function isLoopback(address: string): boolean {
  const a = address.trim().toLowerCase();
  return a === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

const digest = (text: string) => createHash("sha256").update(text).digest();

export function metricsAccess(headers: Headers): MetricsAccess {
  const token = loadConfig().METRICS_TOKEN;
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (token && presented && timingSafeEqual(digest(presented), digest(token))) return { ok: true };
    return {
      ok: false,
      status: 401,
      message: token ? "the metrics token is not valid" : "no metrics token is configured (METRICS_TOKEN)",
    };
  }
  if (globalForServer.toolgateClientAddressDecided && isLoopback(clientAddress(headers))) return { ok: true };
  return {
    ok: false,
    status: 403,
    message: "metrics are served to this machine only; elsewhere present METRICS_TOKEN as a bearer token",
  };
}
