-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "resolvedVia" TEXT;

-- CreateTable
CREATE TABLE "ApprovalLinkUse" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "approvalId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "usedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ApprovalLinkUse_approvalId_idx" ON "ApprovalLinkUse"("approvalId");

