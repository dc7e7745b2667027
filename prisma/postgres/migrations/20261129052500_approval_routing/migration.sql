-- AlterTable
ALTER TABLE "Approval" ADD COLUMN     "allowCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "approverIds" JSONB,
ADD COLUMN     "escalateAt" TIMESTAMP(3),
ADD COLUMN     "escalateToIds" JSONB,
ADD COLUMN     "escalatedAt" TIMESTAMP(3),
ADD COLUMN     "quorum" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "routeRule" TEXT;

-- CreateTable
CREATE TABLE "ApprovalVote" (
    "approvalId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "via" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApprovalVote_pkey" PRIMARY KEY ("approvalId","userId")
);
