// Safe bins: stdin-only filters that may run without an owner because a per-binary profile says exactly which
// flags they accept (and what those flags' values look like) and how many operands, of which kind. Nothing that
// can name a file is accepted, an unknown or abbreviated flag is refused (GNU getopt would expand `--out` to
// `--output`), and the executable must resolve by real path to the binary of that name in a trusted system
// directory: a copy in the workspace, or a same-named program elsewhere on PATH, is never a safe bin.

export type FlagKind = "bool" | "count" | "list" | "char" | "text";

export type SafeBinProfile = {
  /** Short flags ("-n") and long flags ("--lines") with the kind of value they take ("bool": none). */
  flags: Readonly<Record<string, FlagKind>>;
  /** Operands (non-flag words): how many, and they are never file names. */
  minOperands: number;
  maxOperands: number;
};

const COUNT = /^[+-]?\d{1,12}[a-zA-Z]{0,3}$/; // head -n 5, -c 1K, tail -n +2
const LIST = /^[\d,-]{1,64}$/; // cut -f 1,3-5
const CHAR = /^[^\0]$/u; // cut -d :

const VALUE_CHECKS: Record<Exclude<FlagKind, "bool">, RegExp> = {
  count: COUNT,
  list: LIST,
  char: CHAR,
  text: /^[^\0]{0,256}$/u,
};

export const SAFE_BIN_PROFILES: Readonly<Record<string, SafeBinProfile>> = {
  head: {
    flags: {
      "-n": "count",
      "--lines": "count",
      "-c": "count",
      "--bytes": "count",
      "-q": "bool",
      "--quiet": "bool",
      "--silent": "bool",
      "-v": "bool",
      "--verbose": "bool",
      "-z": "bool",
      "--zero-terminated": "bool",
    },
    minOperands: 0,
    maxOperands: 0,
  },
  // No -f/-F/--follow/--pid/-s: following waits for ever and --pid watches another process.
  tail: {
    flags: {
      "-n": "count",
      "--lines": "count",
      "-c": "count",
      "--bytes": "count",
      "-q": "bool",
      "--quiet": "bool",
      "--silent": "bool",
      "-v": "bool",
      "--verbose": "bool",
      "-z": "bool",
      "--zero-terminated": "bool",
    },
    minOperands: 0,
    maxOperands: 0,
  },
  // No --files0-from: it reads a list of file names.
  wc: {
    flags: {
      "-l": "bool",
      "--lines": "bool",
      "-w": "bool",
      "--words": "bool",
      "-c": "bool",
      "--bytes": "bool",
      "-m": "bool",
      "--chars": "bool",
      "-L": "bool",
      "--max-line-length": "bool",
    },
    minOperands: 0,
    maxOperands: 0,
  },
  // No operands at all: uniq's second operand is an output file.
  uniq: {
    flags: {
      "-c": "bool",
      "--count": "bool",
      "-d": "bool",
      "--repeated": "bool",
      "-u": "bool",
      "--unique": "bool",
      "-i": "bool",
      "--ignore-case": "bool",
      "-z": "bool",
      "--zero-terminated": "bool",
      "-f": "count",
      "--skip-fields": "count",
      "-s": "count",
      "--skip-chars": "count",
      "-w": "count",
      "--check-chars": "count",
    },
    minOperands: 0,
    maxOperands: 0,
  },
  cut: {
    flags: {
      "-b": "list",
      "--bytes": "list",
      "-c": "list",
      "--characters": "list",
      "-f": "list",
      "--fields": "list",
      "-d": "char",
      "--delimiter": "char",
      "-s": "bool",
      "--only-delimited": "bool",
      "--complement": "bool",
      "-z": "bool",
      "--zero-terminated": "bool",
      "--output-delimiter": "text",
    },
    minOperands: 0,
    maxOperands: 0,
  },
  // tr's operands are character sets, never files.
  tr: {
    flags: {
      "-d": "bool",
      "--delete": "bool",
      "-s": "bool",
      "--squeeze-repeats": "bool",
      "-c": "bool",
      "-C": "bool",
      "--complement": "bool",
      "-t": "bool",
      "--truncate-set1": "bool",
    },
    minOperands: 1,
    maxOperands: 2,
  },
};

/** Where a safe bin must really live (after every symlink); /bin is /usr/bin on merged-/usr systems. */
export const TRUSTED_SAFE_BIN_DIRS: readonly string[] = ["/usr/bin", "/bin"];

export type ExecutableResolution = {
  /** The word as written (argv[0]). */
  written: string;
  /** The real path after PATH lookup and every symlink; undefined when it does not resolve to an executable file. */
  realPath?: string;
};

/** Whether argv is acceptable for the profile: known flags with well-formed values, operands within bounds. */
export function argvFitsProfile(argv: readonly string[], profile: SafeBinProfile): boolean {
  let operands = 0;
  let onlyOperands = false;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (onlyOperands || word === "-" || !word.startsWith("-")) {
      // A lone "-" names stdin as a file operand: still an operand, and refused where no operand is allowed.
      operands += 1;
      continue;
    }
    if (word === "--") {
      onlyOperands = true;
      continue;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq < 0 ? word : word.slice(0, eq);
      const kind = Object.hasOwn(profile.flags, name) ? profile.flags[name] : undefined;
      if (kind === undefined) return false;
      if (kind === "bool") {
        if (eq >= 0) return false;
        continue;
      }
      const value = eq >= 0 ? word.slice(eq + 1) : argv[++i];
      if (value === undefined || !VALUE_CHECKS[kind].test(value)) return false;
      continue;
    }
    // A cluster of short flags: "-cs", or a value-taking flag with its value attached ("-n5") or next ("-n 5").
    for (let j = 1; j < word.length; j++) {
      const flag = `-${word[j]}`;
      const kind = Object.hasOwn(profile.flags, flag) ? profile.flags[flag] : undefined;
      if (kind === undefined) return false;
      if (kind === "bool") continue;
      const attached = word.slice(j + 1);
      const value = attached !== "" ? attached : argv[++i];
      if (value === undefined || !VALUE_CHECKS[kind].test(value)) return false;
      break;
    }
  }
  return operands >= profile.minOperands && operands <= profile.maxOperands;
}

/**
 * A safe-bin use: the word is a bare name listed in safeBins with a profile, it resolves to that very binary in a
 * trusted directory, and its arguments fit the profile. Listing a name without a profile allows nothing.
 */
export function isSafeBinUsage(params: {
  argv: readonly string[];
  resolution: ExecutableResolution;
  safeBins: readonly string[];
  trustedDirs?: readonly string[];
}): boolean {
  const { argv, resolution } = params;
  const name = resolution.written;
  if (name.includes("/") || argv[0] !== name) return false;
  if (!params.safeBins.some((b) => b.trim().toLowerCase() === name)) return false;
  const profile = Object.hasOwn(SAFE_BIN_PROFILES, name) ? SAFE_BIN_PROFILES[name] : undefined;
  if (!profile || !resolution.realPath) return false;
  const dir = resolution.realPath.slice(0, resolution.realPath.lastIndexOf("/"));
  const base = resolution.realPath.slice(resolution.realPath.lastIndexOf("/") + 1);
  if (base !== name || !(params.trustedDirs ?? TRUSTED_SAFE_BIN_DIRS).includes(dir)) return false;
  return argvFitsProfile(argv, profile);
}
