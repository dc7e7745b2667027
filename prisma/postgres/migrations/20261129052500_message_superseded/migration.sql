-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "supersededAt" TIMESTAMP(3);
