-- CreateTable
CREATE TABLE "EventStreamLease" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "openedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "EventStreamLease_userId_openedAt_idx" ON "EventStreamLease"("userId", "openedAt");

-- CreateIndex
CREATE INDEX "EventStreamLease_instanceId_idx" ON "EventStreamLease"("instanceId");

-- CreateIndex
CREATE INDEX "EventStreamLease_expiresAt_idx" ON "EventStreamLease"("expiresAt");
