-- CreateTable
CREATE TABLE "SlackUserLink" (
    "slackUserId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackUserLink_pkey" PRIMARY KEY ("slackUserId")
);

-- CreateTable
CREATE TABLE "SlackInteractionSeen" (
    "signature" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackInteractionSeen_pkey" PRIMARY KEY ("signature")
);

-- CreateIndex
CREATE INDEX "SlackUserLink_userId_idx" ON "SlackUserLink"("userId");

-- CreateIndex
CREATE INDEX "SlackInteractionSeen_receivedAt_idx" ON "SlackInteractionSeen"("receivedAt");

