-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN "model" TEXT;
