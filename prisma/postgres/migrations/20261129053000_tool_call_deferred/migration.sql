-- AlterTable
ALTER TABLE "ToolCall" ADD COLUMN     "deferredAt" TIMESTAMP(3);
