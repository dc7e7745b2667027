// Characters that change what a reader sees without being visible themselves: C0/C1 controls (but tab and line
// break), format characters (bidi overrides and isolates, zero-width spaces and joiners, soft hyphen, BOM),
// private-use and unassigned code points, and line/paragraph separators. The shell treats them as ordinary
// bytes, so a command holding one is never plain (lib/exec/shell-parser.ts), and wherever a command or rule is
// shown to an owner they appear as their code points.
export const INVISIBLE_CHARACTER = /(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;
const INVISIBLE_GLOBAL = new RegExp(INVISIBLE_CHARACTER.source, "gu");

export function codePointLabel(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The text with every invisible character replaced by a visible ⟨U+XXXX⟩ marker. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE_GLOBAL, (char) => `⟨${codePointLabel(char)}⟩`);
}
