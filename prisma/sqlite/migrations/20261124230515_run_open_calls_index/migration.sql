-- DropIndex
DROP INDEX "ToolCall_runId_idx";

-- CreateIndex
CREATE INDEX "ToolCall_runId_status_idx" ON "ToolCall"("runId", "status");

