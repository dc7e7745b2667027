// The mode gate's one rule, shared by the registry and the effective policy so the two cannot drift.
import { TOOL_MODES, type ToolMode } from "./types";

export function isToolMode(value: unknown): value is ToolMode {
  return typeof value === "string" && (TOOL_MODES as readonly string[]).includes(value);
}

/** allowedModes ∩ override. A missing declaration is the empty set (fail closed); an override only tightens. */
export function computeEffectiveModes(
  allowedModes: readonly ToolMode[] | undefined,
  override?: readonly ToolMode[],
): ToolMode[] {
  const declared = TOOL_MODES.filter((mode) => allowedModes?.includes(mode) === true);
  if (!override) return declared;
  return declared.filter((mode) => override.includes(mode));
}

/** Modes an override names that the tool never declared: an attempt to loosen. */
export function findLoosenedModes(
  allowedModes: readonly ToolMode[] | undefined,
  override: readonly ToolMode[],
): ToolMode[] {
  return override.filter((mode) => allowedModes?.includes(mode) !== true);
}
