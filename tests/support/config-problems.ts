// What parseConfig says is wrong with an environment: the problems of its ConfigError, none when it parses. For
// the unit tests of settings (tests/unit/config, tests/unit/models).
import { ConfigError, parseConfig } from "@/lib/config";

export function configProblems(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
