-- CreateTable
CREATE TABLE "SlackUserLink" (
    "slackUserId" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "SlackInteractionSeen" (
    "signature" TEXT NOT NULL PRIMARY KEY,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "SlackUserLink_userId_idx" ON "SlackUserLink"("userId");

-- CreateIndex
CREATE INDEX "SlackInteractionSeen_receivedAt_idx" ON "SlackInteractionSeen"("receivedAt");

