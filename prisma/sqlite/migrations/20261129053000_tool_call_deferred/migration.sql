-- AlterTable
ALTER TABLE "ToolCall" ADD COLUMN "deferredAt" DATETIME;
