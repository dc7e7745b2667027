-- CreateTable
CREATE TABLE "ApprovalDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approvalId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedBy" TEXT,
    "claimedUntil" DATETIME,
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" DATETIME
);

-- CreateIndex
CREATE INDEX "ApprovalDelivery_status_nextAttemptAt_idx" ON "ApprovalDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "ApprovalDelivery_createdAt_idx" ON "ApprovalDelivery"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalDelivery_approvalId_channel_target_key" ON "ApprovalDelivery"("approvalId", "channel", "target");

