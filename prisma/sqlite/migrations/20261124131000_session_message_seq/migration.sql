-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChatSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT 'New chat',
    "mode" TEXT NOT NULL DEFAULT 'chat_safe',
    "agentId" TEXT,
    "parentId" TEXT,
    "depth" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "activeRunId" TEXT,
    "deletedAt" DATETIME,
    "messageSeq" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "ChatSession_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChatSession_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "ChatSession" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_ChatSession" ("activeRunId", "agentId", "createdAt", "deletedAt", "depth", "id", "mode", "ownerId", "parentId", "title", "updatedAt") SELECT "activeRunId", "agentId", "createdAt", "deletedAt", "depth", "id", "mode", "ownerId", "parentId", "title", "updatedAt" FROM "ChatSession";
DROP TABLE "ChatSession";
ALTER TABLE "new_ChatSession" RENAME TO "ChatSession";
CREATE INDEX "ChatSession_ownerId_updatedAt_idx" ON "ChatSession"("ownerId", "updatedAt");
CREATE INDEX "ChatSession_parentId_idx" ON "ChatSession"("parentId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;


-- Existing transcripts: each session's counter starts at its last message.
UPDATE "ChatSession" SET "messageSeq" = COALESCE((SELECT MAX("seq") FROM "Message" WHERE "Message"."sessionId" = "ChatSession"."id"), 0);
