-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "riskKinds" TEXT;
