-- CreateTable
CREATE TABLE "ApprovalDelivery" (
    "id" TEXT NOT NULL,
    "approvalId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedBy" TEXT,
    "claimedUntil" TIMESTAMP(3),
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "ApprovalDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ApprovalDelivery_status_nextAttemptAt_idx" ON "ApprovalDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "ApprovalDelivery_createdAt_idx" ON "ApprovalDelivery"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalDelivery_approvalId_channel_target_key" ON "ApprovalDelivery"("approvalId", "channel", "target");

