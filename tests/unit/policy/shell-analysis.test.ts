import { describe, expect, it } from "vitest";
import { analyzeShellCommand } from "@/lib/policy";

describe("analyzeShellCommand: accepted command lines", () => {
  it.each([
    ["ls -la", [["ls", "-la"]], []],
    ["git status && git diff", [["git", "status"], ["git", "diff"]], ["&&"]],
    ["make || echo failed", [["make"], ["echo", "failed"]], ["||"]],
    ["a; b;c", [["a"], ["b"], ["c"]], [";", ";"]],
    ["cat f.txt | grep x | wc -l", [["cat", "f.txt"], ["grep", "x"], ["wc", "-l"]], ["|", "|"]],
    ["echo 'a && b | c > d'", [["echo", "a && b | c > d"]], []],
    ['echo "x; y" z', [["echo", "x; y", "z"]], []],
    ['echo "it\'s \\"quoted\\""', [["echo", 'it\'s "quoted"']], []],
    ["echo a\\;b", [["echo", "a;b"]], []],
    ["echo ''", [["echo", ""]], []],
    ["ls;", [["ls"]], []],
    ["ls\nPWD=/tmp pwd", [["ls"], ["pwd"]], [";"]],
    ["ls &&\n  pwd", [["ls"], ["pwd"]], ["&&"]],
    ["echo $HOME", [["echo", "$HOME"]], []],
    ["cat <<'EOF'\n$HOME `x`\nEOF\n", [["cat"]], []],
    ["cat <<EOF\nplain text\nEOF", [["cat"]], []],
    ["cat <<-\"END\"\n\t$x\n\tEND\necho done", [["cat"], ["echo", "done"]], [";"]],
  ])("%j", (command, argvs, operators) => {
    const analysis = analyzeShellCommand(command);
    expect(analysis.reason).toBeUndefined();
    expect(analysis.ok).toBe(true);
    expect(analysis.segments.map((s) => s.argv)).toEqual(argvs);
    expect(analysis.operators).toEqual(operators);
  });

  it("splits leading assignments from the executable", () => {
    const [segment] = analyzeShellCommand("FOO=1 BAR='a b' node x.js").segments;
    expect(segment).toEqual({ raw: "FOO=1 BAR='a b' node x.js", argv: ["node", "x.js"], executable: "node", assignments: ["FOO=1", "BAR=a b"] });
  });
});

describe("analyzeShellCommand: rejected constructs", () => {
  it.each([
    ["echo hi > out.txt", "redirection (>)"],
    ["echo hi >> out.txt", "redirection (>>)"],
    ["cmd 2> err.txt", "redirection (2>)"],
    ["cmd 2>&1", "redirection (2>)"],
    ["cmd &> all.txt", "redirection (&>)"],
    ["sort < in.txt", "redirection (<)"],
    ["cat <<< 'x'", "here-string (<<<)"],
    ["echo $(whoami)", "command substitution $(...)"],
    ['echo "$(whoami)"', "command substitution $(...)"],
    ["echo `whoami`", "command substitution with backticks"],
    ['echo "`whoami`"', "command substitution with backticks"],
    ["cat <<EOF\n$(id)\nEOF", "unquoted heredoc expansion"],
    ["cat <<EOF\n$HOME\nEOF", "unquoted heredoc expansion"],
    ["cat <<EOF\nno end", "unterminated heredoc"],
    ["cat <<EOF", "heredoc without a body"],
    ["diff <(ls a) <(ls b)", "process substitution <(...)"],
    ["(cd /; ls)", "subshell or grouping ( )"],
    ["sleep 10 &", "background operator &"],
    ["ls |& cat", "redirection (|&)"],
    ["echo 'unterminated", "unterminated single quote"],
    ['echo "unterminated', "unterminated double quote"],
    ["ls &&", 'command ends with "&&"'],
    ["| ls", 'missing command before "|"'],
    ["ls && && pwd", 'missing command after "&&"'],
    ["ls ;; pwd", "case terminator ;;"],
    ["FOO=1", "no command"],
    ["$CMD arg", "executable is a variable expansion"],
    ["/usr/bin/* x", "executable contains a glob"],
    ["", "empty command"],
    ["   ", "empty command"],
  ])("%j → %s", (command, reason) => {
    const analysis = analyzeShellCommand(command);
    expect(analysis.ok).toBe(false);
    expect(analysis.reason).toContain(reason);
  });
});
