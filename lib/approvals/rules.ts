// Pure approval rules that are not policy evaluation. What allow-always may store lives in ./grants.ts.
import { canonicalJson, sha256Hex } from "@/lib/canonical-json";

/** A decision is bound to the exact call: call id + a hash of the arguments. */
export function hashArguments(toolName: string, args: unknown): string {
  return sha256Hex(toolName, canonicalJson(args));
}
