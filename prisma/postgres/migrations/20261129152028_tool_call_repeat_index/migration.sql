-- CreateIndex
CREATE INDEX "ToolCall_sessionId_toolName_argsHash_idx" ON "ToolCall"("sessionId", "toolName", "argsHash");

