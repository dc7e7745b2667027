-- CreateTable
CREATE TABLE "EventStreamLease" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "openedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EventStreamLease_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EventStreamLease_userId_openedAt_idx" ON "EventStreamLease"("userId", "openedAt");

-- CreateIndex
CREATE INDEX "EventStreamLease_instanceId_idx" ON "EventStreamLease"("instanceId");

-- CreateIndex
CREATE INDEX "EventStreamLease_expiresAt_idx" ON "EventStreamLease"("expiresAt");
