import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { writeWorkspaceText } from "../workspace-files";

const inputSchema = z.object({
  path: z.string().min(1).describe("File path relative to the workspace root; parent directories are created."),
  content: z.string().describe("The complete new content of the file (replaces any existing content)."),
});

export const writeTool = defineBuiltinTool({
  name: "write",
  description: "Create or overwrite a text file in the workspace.",
  group: "code",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const { file, bytes } = await writeWorkspaceText(getToolContext(options), input.path, input.content);
    return { path: file.relativePath, bytesWritten: bytes, created: !file.exists };
  },
});
