// Which executables must never be covered by a grant, an allowlist rule or a safe-bin profile, kept as data.
// A "command runner" runs other programs or code that its arguments name or contain (shells, interpreters,
// wrappers such as env/nice/timeout, find -exec, sed's e command, tar's checkpoint actions, make, package
// runners, loaders, debuggers, editors with shell escapes), or changes how later words of the same command line
// resolve (export, hash, cd-less state builtins). Allowing one "always" would allow every command, so each use
// needs its own approval. Multi-command tools (git, npm, cargo, ...) may be granted only with their subcommand,
// and only subcommands that do not themselves run arbitrary programs.

/** Executables (by base name) that run what their arguments say. Each has a test in tests/unit/exec/runners.test.ts. */
export const COMMAND_RUNNERS: ReadonlySet<string> = new Set([
  // shells and multi-call binaries
  "sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "toybox",
  // shell builtins that run code or change how later words resolve
  "eval", "exec", "source", ".", "command", "builtin", "trap", "enable", "export", "alias", "hash", "set", "declare",
  "typeset", "readonly", "local", "unset", "read", "mapfile", "readarray", "let", "coproc", "time", "printf",
  // wrappers that run their arguments
  "env", "sudo", "su", "doas", "runuser", "setpriv", "setsid", "nohup", "nice", "ionice", "chrt", "taskset", "timeout",
  "stdbuf", "unbuffer", "script", "flock", "chroot", "unshare", "nsenter", "xargs", "parallel", "watch", "systemd-run",
  "start-stop-daemon", "at", "batch", "crontab", "ssh", "expect", "dbus-launch", "xdg-open",
  // interpreters and compilers-that-run
  "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby", "irb", "php", "lua",
  "luajit", "tclsh", "wish", "R", "Rscript", "julia", "java", "jshell", "groovy", "scala", "kotlin", "osascript",
  "pwsh", "powershell", "awk", "gawk", "mawk", "nawk", "sed", "ed", "ex", "m4", "bc", "dc",
  // tools with an execute option or subcommand
  "find", "tar", "zip", "rsync", "make", "gmake", "cmake", "ninja", "git", "npx", "pnpx", "bunx", "npm", "pnpm", "yarn",
  "corepack", "pip", "pip3", "pipx", "uv", "uvx", "poetry", "cargo", "go", "docker", "podman", "kubectl",
  // loaders, debuggers, tracers
  "ld.so", "ldd", "gdb", "lldb", "strace", "ltrace", "valgrind", "perf",
  // editors and pagers with shell escapes (editor, pager and sensible-* are Debian's alternatives for them)
  "vi", "vim", "nvim", "view", "emacs", "nano", "less", "more", "man", "sqlite3", "psql", "mysql",
  "editor", "pager", "sensible-editor", "sensible-pager", "sensible-browser", "vimdiff", "rview", "rvim", "gvim", "mail", "mailx",
  // an option runs a program or loads code: sort --compress-program, split --filter, sdiff/diff3 --diff-program,
  // rg --pre, fd -x, cc -wrapper/-fplugin, ld -plugin, scp/sftp -S, wget --use-askpass, groff -U, openssl -engine,
  // gpg's photo viewer, ssh-keygen -D (PKCS#11 library), cpio --rsh-command, socat EXEC:, tmux/screen commands
  "sort", "split", "sdiff", "diff3", "rg", "fd", "fdfind", "gcc", "g++", "cc", "c++", "clang", "clang++", "cpp", "ld",
  "rustc", "javac", "scp", "sftp", "wget", "groff", "nroff", "troff", "openssl", "gpg", "ssh-keygen", "cpio", "socat",
  "nc", "ncat", "netcat", "tmux", "screen", "git-shell", "pydoc", "pydoc3", "apt", "apt-get", "dpkg",
  // wrappers that run their arguments (util-linux, moreutils and friends)
  "prlimit", "setarch", "linux32", "linux64", "i386", "x86_64", "uname26", "run-parts", "scriptlive", "capsh", "sg",
  "newgrp", "pkexec", "bwrap", "firejail", "fakeroot", "fakeroot-sysv", "fakeroot-tcp", "faketime", "eatmydata",
  "catchsegv", "dbus-run-session", "ssh-agent", "sshpass", "rlwrap", "torsocks", "proxychains", "proxychains4",
  "ifne", "chronic", "vipe", "pee", "lckdo", "entr", "tini", "dumb-init", "runcon", "numactl", "cgexec", "chpst",
  "proot", "xvfb-run", "ip", "c89", "c99", "c89-gcc", "c99-gcc", "gold", "jexec", "jrunscript", "escript", "run_erl",
  "msgexec", "optscript", "lessfile", "lesspipe", "zless", "zmore", "bzless", "bzmore", "xzless", "xzmore", "lzless",
  "lzmore", "zstdless", "perldoc", "perlbug", "cpan", "select-editor", "vimtutor", "gdbtui", "vgdb", "pldd", "gprofng",
  "pg_virtualenv", "make-first-existing-target", "dpkg-buildpackage", "mysqld_safe", "xdg-screensaver", "lli",
  // more shells and interpreters (issue 28: the prefix allow-list below is what keeps unlisted ones out; these make
  // an exact-argv grant of them refused too)
  "yash", "nu", "xonsh", "elvish", "osh", "oil", "ysh", "ash", "posh", "ion", "rc", "es", "erl", "erlc", "elixir",
  "elixirc", "iex", "mix", "guile", "ghc", "ghci", "runghc", "runhaskell", "stack", "cabal", "raku", "rakudo", "perl6",
  "clojure", "clj", "lein", "scala-cli", "scala", "amm", "sbt", "racket", "sbcl", "clisp", "ecl", "gforth", "ocaml",
  "ocamlrun", "swipl", "gnuplot", "octave", "csi", "gsi", "tcc", "pike", "nim", "crystal", "dart", "zig", "swift",
  "kotlinc", "jbang", "mvn", "gradle", "ant", "rake", "bundle", "gem", "composer", "dotnet", "cpulimit", "trickle",
  "nocache", "daemonize", "gosu", "su-exec", "setuidgid", "envdir", "softlimit", "setlock", "nsjail", "minijail0",
  "systemd-nspawn", "wine", "box64", "rr", "gdbserver", "sem", "xterm", "dtach", "abduco", "mosh", "sudoedit",
]);

const RUNNER_PATTERNS: readonly RegExp[] = [
  /^python\d+(\.\d+)*$/, // python3.11
  /^ld-linux.*\.so(\.\d+)*$/, // the dynamic loader runs any file it is given
  /^(perl|ruby|php|lua|node)\d+(\.\d+)*$/,
  /^(tclsh|wish|luajit|pypy)\d+(\.\d+)*$/, // tclsh8.6, the real path of tclsh
  /^g?vim\.\w+$/, // vim.basic, vim.tiny: the real path of vi, vim and editor on Debian
  // compilers and linkers under their real, versioned or target-prefixed names (x86_64-linux-gnu-gcc-12, ld.bfd)
  /^([\w.-]+-)?(gcc|g\+\+|cc|c\+\+|cpp|clang|clang\+\+|gold|lli|gp-collect-app)(-\d+(\.\d+)*)?$/,
  /^([\w.-]+-)?ld(\.(bfd|gold|lld))?$/,
  /^cpan\d/, // cpan5.36-x86_64-linux-gnu
];

/**
 * Multi-command tools: a grant must name the tool and one of these subcommands, nothing before it (no global
 * options such as git's -c or -C), and the subcommand must not run programs of the user's choosing.
 */
export const SUBCOMMAND_TOOLS: Readonly<Record<string, ReadonlySet<string>>> = {
  // Not add/commit/checkout/diff/show...: they run hooks, filter or textconv drivers from the workspace's own
  // config. The sandbox also neutralises hooks, fsmonitor, pager, editor, external diff and signature programs for
  // every command (GIT_CONFIG_*), and the repository's metadata is read-only to any command no owner approved.
  git: new Set(["status", "log", "rev-parse", "ls-files", "branch", "tag", "describe", "shortlog"]),
  // Not install/ci/run/exec/test/pack: they run package scripts (pack runs prepack/prepare).
  npm: new Set(["ls", "list", "outdated", "view", "audit"]),
  // Not build/vet/list/run/test/generate: build flags (-toolexec, -vettool, cgo) run programs.
  go: new Set(["fmt", "version"]),
  // Deliberately absent, so every use of them needs an owner, because a file in the workspace ($HOME there) makes
  // any subcommand run a program: yarn (yarnPath / yarn-path), pnpm (.pnpmfile.cjs), cargo (rust-toolchain.toml
  // toolchain paths, rustc-wrapper), pip (usercustomize.py and .pth files in the user site), kubectl (kubeconfig
  // exec credential plugins), docker (a context with an ssh:// endpoint runs ssh).
};

/**
 * The only executables a prefix rule (`… *`, any further arguments) may name, besides a multi-command tool
 * followed by one of its harmless subcommands: programs whose arguments never make them run a program or load
 * code. An allow-list, so a program nobody listed (a new shell, an interpreter, a wrapper) fails closed: it can
 * still be granted with its exact arguments, never "with any". Checked on the rule's words and again on where
 * the program really is when a rule matches (a path glob such as `/usr/bin/* *` covers only these).
 */
export const PREFIX_SAFE_EXECUTABLES: ReadonlySet<string> = new Set([
  "ls", "cat", "echo", "pwd", "wc", "head", "tail", "cut", "uniq", "tr", "grep", "diff", "cmp", "comm", "stat", "file",
  "du", "df", "date", "whoami", "id", "uname", "basename", "dirname", "realpath", "readlink", "touch", "mkdir", "rmdir",
  "rm", "cp", "mv", "ln", "chmod", "tree", "nl", "od", "hexdump", "xxd", "md5sum", "sha1sum", "sha256sum",
  "sha512sum", "b2sum", "cksum", "base64", "base32", "true", "false", "test", "[", "seq", "sleep", "tac", "rev", "fold",
  "fmt", "column", "paste", "join", "expand", "unexpand", "strings", "tee", "mktemp", "jq", "expr", "numfmt", "shuf",
  "truncate", "sum", "nproc", "printenv", "getconf", "locale", "cal", "factor", "look",
]);

function baseName(executable: string): string {
  return executable.slice(executable.lastIndexOf("/") + 1);
}

/** Whether this executable (as written, or as it resolves) is a command runner. */
export function isCommandRunner(executable: string): boolean {
  const base = baseName(executable);
  return COMMAND_RUNNERS.has(base) || RUNNER_PATTERNS.some((p) => p.test(base));
}

/**
 * Whether a rule (the fixed words a grant or allowlist rule requires, before any trailing `*`) may cover
 * commands at all: never a command runner, except a multi-command tool followed directly by a harmless subcommand.
 * Returns the reason when it may not.
 */
export function ruleRefusal(words: readonly string[], prefix = false): string | null {
  const [executable, subcommand] = words;
  if (executable === undefined) return "a rule needs at least an executable";
  const base = baseName(executable);
  const subcommands = Object.hasOwn(SUBCOMMAND_TOOLS, base) ? SUBCOMMAND_TOOLS[base] : undefined;
  if (subcommands) {
    if (subcommand === undefined) return `${base} runs many commands: a rule must name the subcommand too (e.g. "${base} ${[...subcommands][0]} *")`;
    if (!subcommands.has(subcommand)) return `"${base} ${subcommand}" can run programs of the caller's choosing (or is an alias or option); it needs an approval each time`;
    return null;
  }
  if (isCommandRunner(executable)) return `${base} runs other programs or code given in its arguments; it needs an approval each time`;
  // A path glob ("/usr/bin/*") names no program yet: prefixRefusal checks the one it matches.
  if (prefix && !/[*?]/.test(executable)) return prefixRefusal(executable);
  return null;
}

/**
 * Why a prefix rule may not cover this executable (as written, or where it really is), or null when it may: only
 * PREFIX_SAFE_EXECUTABLES and the multi-command tools (whose subcommand ruleRefusal checks).
 */
export function prefixRefusal(executable: string): string | null {
  const base = baseName(executable);
  if (PREFIX_SAFE_EXECUTABLES.has(base) || Object.hasOwn(SUBCOMMAND_TOOLS, base)) return null;
  return `"${base} *" would cover any arguments, and ${base} is not known to run no code with them; grant the exact command instead`;
}
