-- AlterTable
ALTER TABLE "Approval" ADD COLUMN     "resolvedVia" TEXT;

-- CreateTable
CREATE TABLE "ApprovalLinkUse" (
    "nonce" TEXT NOT NULL,
    "approvalId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "usedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApprovalLinkUse_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "ApprovalLinkUse_approvalId_idx" ON "ApprovalLinkUse"("approvalId");

