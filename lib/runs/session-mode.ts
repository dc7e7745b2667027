import "server-only";
// A session's mode is read from the database on every turn and only ever trusted fail-closed: a missing,
// invalid or not-permitted value, or a read error, counts as chat_safe, with a warning holding the raw value
// and the session id. The model has no path to change it.
import { isToolMode, type ToolMode } from "@/lib/policy";
import { log } from "@/lib/log";
import { readSessionMode } from "@/lib/db/sessions";

export type ModeResolution = { mode: ToolMode; downgraded?: "missing" | "invalid" | "not_permitted" | "read_error" };

/** Pure: decides the effective mode from the stored raw value and the modes the user is granted. */
export function resolveSessionMode({
  raw,
  grantedModes,
  sessionId,
}: {
  raw: unknown;
  grantedModes: readonly ToolMode[];
  sessionId: string;
}): ModeResolution {
  if (raw === null || raw === undefined || raw === "") {
    log("warn", "mode_downgraded", { reason: "missing", raw: raw ?? null, sessionId, mode: "chat_safe" });
    return { mode: "chat_safe", downgraded: "missing" };
  }
  if (!isToolMode(raw)) {
    log("warn", "invalid_mode_value", { reason: "invalid", raw, sessionId, mode: "chat_safe" });
    return { mode: "chat_safe", downgraded: "invalid" };
  }
  if (!grantedModes.includes(raw)) {
    log("warn", "mode_downgraded", { reason: "not_permitted", raw, sessionId, mode: "chat_safe" });
    return { mode: "chat_safe", downgraded: "not_permitted" };
  }
  return { mode: raw };
}

export async function getSessionMode({
  sessionId,
  grantedModes,
  read = readSessionMode,
}: {
  sessionId: string;
  grantedModes: readonly ToolMode[];
  read?: (args: { sessionId: string }) => Promise<string | null>;
}): Promise<ModeResolution> {
  let raw: string | null;
  try {
    raw = await read({ sessionId });
  } catch (error) {
    log("warn", "mode_read_error", {
      sessionId,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      mode: "chat_safe",
    });
    return { mode: "chat_safe", downgraded: "read_error" };
  }
  return resolveSessionMode({ raw, grantedModes, sessionId });
}
