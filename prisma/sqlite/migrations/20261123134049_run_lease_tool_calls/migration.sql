-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN "activeRunId" TEXT;

-- AlterTable
ALTER TABLE "AgentRun" ADD COLUMN "leaseExpiresAt" DATETIME;
ALTER TABLE "AgentRun" ADD COLUMN "leaseOwner" TEXT;
ALTER TABLE "AgentRun" ADD COLUMN "stopRequestedAt" DATETIME;
ALTER TABLE "AgentRun" ADD COLUMN "stopRequestedBy" TEXT;
ALTER TABLE "AgentRun" ADD COLUMN "userSeq" INTEGER;

-- CreateTable
CREATE TABLE "ToolCall" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "approvalId" TEXT,
    "decidedBy" TEXT,
    "decidedAt" DATETIME,
    "pid" INTEGER,
    "host" TEXT,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "ToolCall_runId_idx" ON "ToolCall"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "ToolCall_sessionId_callId_key" ON "ToolCall"("sessionId", "callId");

-- CreateIndex
CREATE INDEX "AgentRun_status_leaseExpiresAt_idx" ON "AgentRun"("status", "leaseExpiresAt");

