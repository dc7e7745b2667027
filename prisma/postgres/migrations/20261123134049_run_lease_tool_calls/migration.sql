-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN     "activeRunId" TEXT;

-- AlterTable
ALTER TABLE "AgentRun" ADD COLUMN     "leaseExpiresAt" TIMESTAMP(3),
ADD COLUMN     "leaseOwner" TEXT,
ADD COLUMN     "stopRequestedAt" TIMESTAMP(3),
ADD COLUMN     "stopRequestedBy" TEXT,
ADD COLUMN     "userSeq" INTEGER;

-- CreateTable
CREATE TABLE "ToolCall" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "approvalId" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "pid" INTEGER,
    "host" TEXT,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ToolCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ToolCall_runId_idx" ON "ToolCall"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "ToolCall_sessionId_callId_key" ON "ToolCall"("sessionId", "callId");

-- CreateIndex
CREATE INDEX "AgentRun_status_leaseExpiresAt_idx" ON "AgentRun"("status", "leaseExpiresAt");

