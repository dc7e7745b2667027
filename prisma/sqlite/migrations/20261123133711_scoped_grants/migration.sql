-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AllowlistEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "createdById" TEXT,
    "approvalId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME,
    "lastUsedAt" DATETIME,
    "prefix" BOOLEAN NOT NULL DEFAULT false,
    "reason" TEXT,
    "scope" TEXT NOT NULL DEFAULT 'user',
    "scopeId" TEXT NOT NULL DEFAULT '',
    "useCount" INTEGER NOT NULL DEFAULT 0,
    "words" JSONB
);
INSERT INTO "new_AllowlistEntry" ("approvalId", "createdAt", "createdById", "id", "kind", "pattern") SELECT "approvalId", "createdAt", "createdById", "id", "kind", "pattern" FROM "AllowlistEntry";
DROP TABLE "AllowlistEntry";
ALTER TABLE "new_AllowlistEntry" RENAME TO "AllowlistEntry";
CREATE INDEX "AllowlistEntry_kind_scope_scopeId_idx" ON "AllowlistEntry"("kind", "scope", "scopeId");
CREATE UNIQUE INDEX "AllowlistEntry_kind_pattern_scope_scopeId_key" ON "AllowlistEntry"("kind", "pattern", "scope", "scopeId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;


-- Executable-wide allow-always entries were the hole this migration closes: they are removed, not converted.
DELETE FROM "AllowlistEntry" WHERE "kind" = 'exec';
-- Tool entries were global before scopes existed.
UPDATE "AllowlistEntry" SET "scope" = 'everyone' WHERE "kind" = 'tool';
