-- AlterTable
ALTER TABLE "Message" ADD COLUMN "supersededAt" DATETIME;
