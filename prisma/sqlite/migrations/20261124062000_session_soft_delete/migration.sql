-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN "deletedAt" DATETIME;
