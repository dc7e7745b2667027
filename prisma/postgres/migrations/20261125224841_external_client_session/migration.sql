-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN     "clientKey" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "ChatSession_ownerId_clientKey_key" ON "ChatSession"("ownerId", "clientKey");

