import { z } from "zod";
import { AppError } from "@/lib/errors";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { readWorkspaceText } from "../workspace-files";

const inputSchema = z.object({
  path: z.string().min(1).describe("File path relative to the workspace root, e.g. src/index.ts."),
  offset: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
  limit: z.number().int().min(1).optional().describe("Maximum number of lines to return (default: to the end)."),
});

export const readTool = defineBuiltinTool({
  name: "read",
  description: "Read a text file in the workspace, optionally a range of lines.",
  group: "code",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { content, file, bytes } = await readWorkspaceText(getToolContext(options), input.path);
    const lines = content.split("\n");
    // A trailing newline ends the last line; it does not start another one.
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    const start = (input.offset ?? 1) - 1;
    if (start > 0 && start >= lines.length) {
      throw new AppError(
        "INVALID_ARGUMENTS",
        `offset ${start + 1} is past the end of ${file.relativePath} (${lines.length} lines)`,
      );
    }
    const end = input.limit === undefined ? lines.length : Math.min(lines.length, start + input.limit);
    const whole = start === 0 && end === lines.length;
    return {
      path: file.relativePath,
      content: whole ? content : lines.slice(start, end).join("\n"),
      bytes,
      totalLines: lines.length,
      startLine: start + 1,
      endLine: end,
    };
  },
});
