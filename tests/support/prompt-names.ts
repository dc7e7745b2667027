// Reads back the tool names a system prompt's tooling layer lists ("- name: description" lines under
// "## Tools"), so tests compare what the prompt declares with what the model was given and the gate allows.
export function namesInToolingLayer(system: string): string[] {
  const section = system.split("## Tools")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^- ([a-z0-9_]+):/gm)].map((m) => m[1]!);
}
