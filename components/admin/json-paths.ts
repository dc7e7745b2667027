// Where a dotted document path ("teams.ops.deny") is in the JSON text, read from CodeMirror's syntax tree, so a
// problem the checks or the server report by path gets a marker on the line that holds it. Keys may contain dots
// (team ids such as "whatsapp:1203…@g.us", e-mails), so at each object the longest key that prefixes the rest of
// the path wins. When the path runs out of the text (a missing key), the deepest part found is marked.
import { ensureSyntaxTree, syntaxTree } from "@codemirror/language";
import type { EditorState } from "@codemirror/state";

type SyntaxNode = ReturnType<typeof syntaxTree>["topNode"];

export type TextRange = { from: number; to: number };

function propertyName(state: EditorState, property: SyntaxNode): string | undefined {
  const name = property.getChild("PropertyName");
  if (!name) return undefined;
  try {
    return JSON.parse(state.doc.sliceString(name.from, name.to)) as string;
  } catch {
    return undefined;
  }
}

function valueOf(property: SyntaxNode): SyntaxNode | null {
  let child = property.lastChild;
  while (child && (child.name === "PropertyName" || child.name === ":" || child.type.isError))
    child = child.prevSibling;
  return child && child.name !== "PropertyName" ? child : null;
}

export function locatePath(state: EditorState, path: string): TextRange | undefined {
  // The whole document parsed (policy documents are small); the incremental tree may stop at the viewport.
  const top = (ensureSyntaxTree(state, state.doc.length, 200) ?? syntaxTree(state)).topNode;
  let node: SyntaxNode | null = top.firstChild;
  let found: TextRange | undefined;
  let rest = path === "(root)" || path === "(body)" ? "" : path;
  while (node && rest !== "") {
    if (node.name === "Object") {
      let best: { key: string; property: SyntaxNode } | undefined;
      for (let p = node.firstChild; p; p = p.nextSibling) {
        if (p.name !== "Property") continue;
        const key = propertyName(state, p);
        if (key === undefined || !(rest === key || rest.startsWith(`${key}.`))) continue;
        if (!best || key.length > best.key.length) best = { key, property: p };
      }
      if (!best) break;
      const name = best.property.getChild("PropertyName")!;
      found = { from: name.from, to: name.to };
      rest = rest.slice(best.key.length + 1);
      node = valueOf(best.property);
    } else if (node.name === "Array") {
      const [head, ...tail] = rest.split(".");
      const index = Number(head);
      if (!Number.isInteger(index)) break;
      const items: SyntaxNode[] = [];
      for (let c = node.firstChild; c; c = c.nextSibling)
        if (!["[", "]", ","].includes(c.name) && !c.type.isError) items.push(c);
      const item = items[index];
      if (!item) break;
      found = { from: item.from, to: item.to };
      rest = tail.join(".");
      node = item;
    } else break;
  }
  return (
    found ??
    (top.firstChild
      ? { from: top.firstChild.from, to: Math.min(top.firstChild.from + 1, state.doc.length) }
      : undefined)
  );
}
