-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN     "deletedAt" TIMESTAMP(3);
