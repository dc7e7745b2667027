-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "allowCount" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Approval" ADD COLUMN "approverIds" JSONB;
ALTER TABLE "Approval" ADD COLUMN "escalateAt" DATETIME;
ALTER TABLE "Approval" ADD COLUMN "escalateToIds" JSONB;
ALTER TABLE "Approval" ADD COLUMN "escalatedAt" DATETIME;
ALTER TABLE "Approval" ADD COLUMN "quorum" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "Approval" ADD COLUMN "routeRule" TEXT;

-- CreateTable
CREATE TABLE "ApprovalVote" (
    "approvalId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "via" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("approvalId", "userId")
);
