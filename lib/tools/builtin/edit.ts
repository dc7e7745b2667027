import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { assertWritable, readWorkspaceText, writeResolvedText } from "../workspace-files";

const inputSchema = z.object({
  path: z.string().min(1).describe("File path relative to the workspace root."),
  oldText: z
    .string()
    .min(1)
    .describe("Exact text to replace, including whitespace; must occur exactly once unless replaceAll."),
  newText: z.string().describe("Replacement text."),
  replaceAll: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one."),
});

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

export const editTool = defineBuiltinTool({
  name: "edit",
  description: "Replace an exact piece of text in a workspace file.",
  group: "code",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const ctx = getToolContext(options);
    const { file, content } = await readWorkspaceText(ctx, input.path);
    const count = countOccurrences(content, input.oldText);
    if (count === 0) {
      throw new AppError(
        "INVALID_ARGUMENTS",
        `oldText was not found in ${file.relativePath}; read the file and copy the text exactly`,
      );
    }
    if (count > 1 && !input.replaceAll) {
      throw new AppError(
        "INVALID_ARGUMENTS",
        `oldText occurs ${count} times in ${file.relativePath}; include more surrounding text or set replaceAll`,
      );
    }
    // split/join rather than String.replace: "$&"-style patterns in newText must stay literal.
    const updated = content.split(input.oldText).join(input.newText);
    assertWritable(ctx, file.relativePath, updated);
    await writeResolvedText(file, updated);
    return { path: file.relativePath, replacements: count };
  },
});
