// Pure approval rules that are not policy evaluation: argument binding and what allow-always may persist.
import { analyzeShellCommand } from "@/lib/policy";
import { canonicalJson, sha256Hex } from "@/lib/canonical-json";

/** A decision is bound to the exact call: call id + a hash of the arguments. */
export function hashArguments(toolName: string, args: unknown): string {
  return sha256Hex(toolName, canonicalJson(args));
}

// Allowing one of these "always" would allow every command (the reference's warning).
const SHELLS_AND_INTERPRETERS = new Set([
  "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox", "env", "sudo", "su", "doas", "xargs", "exec", "eval", "nohup", "timeout", "nice",
  "python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "tclsh", "awk", "gawk", "osascript", "pwsh", "powershell",
]);

export function isShellOrInterpreter(executable: string): boolean {
  const base = executable.split("/").pop() ?? executable;
  return SHELLS_AND_INTERPRETERS.has(base) || /^python\d/.test(base) || /^(ba|z|da|k)?sh$/.test(base);
}

/**
 * The allowlist patterns an allow-always decision on this command adds: each executable of the command,
 * never a shell or interpreter. `refused` lists what was not persisted and why.
 */
export function allowAlwaysPatterns(command: string): { patterns: string[]; refused: string[] } {
  const analysis = analyzeShellCommand(command);
  if (!analysis.ok) return { patterns: [], refused: [`the command could not be analysed: ${analysis.reason}`] };
  const patterns: string[] = [];
  const refused: string[] = [];
  for (const segment of analysis.segments) {
    const exe = segment.executable;
    if (isShellOrInterpreter(exe)) refused.push(`${exe} is a shell or interpreter and is never allowed always`);
    else if (!patterns.includes(exe)) patterns.push(exe);
  }
  return { patterns, refused };
}
