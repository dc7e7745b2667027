-- DropIndex
DROP INDEX "AllowlistEntry_kind_pattern_key";

-- AlterTable
ALTER TABLE "AllowlistEntry" ADD COLUMN     "expiresAt" TIMESTAMP(3),
ADD COLUMN     "lastUsedAt" TIMESTAMP(3),
ADD COLUMN     "prefix" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "reason" TEXT,
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT 'user',
ADD COLUMN     "scopeId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "useCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "words" JSONB;

-- CreateIndex
CREATE INDEX "AllowlistEntry_kind_scope_scopeId_idx" ON "AllowlistEntry"("kind", "scope", "scopeId");

-- CreateIndex
CREATE UNIQUE INDEX "AllowlistEntry_kind_pattern_scope_scopeId_key" ON "AllowlistEntry"("kind", "pattern", "scope", "scopeId");


-- Executable-wide allow-always entries were the hole this migration closes: they are removed, not converted.
DELETE FROM "AllowlistEntry" WHERE "kind" = 'exec';
-- Tool entries were global before scopes existed.
UPDATE "AllowlistEntry" SET "scope" = 'everyone' WHERE "kind" = 'tool';
