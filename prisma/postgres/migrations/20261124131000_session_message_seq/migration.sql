-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN     "messageSeq" INTEGER NOT NULL DEFAULT 0;


-- Existing transcripts: each session's counter starts at its last message.
UPDATE "ChatSession" SET "messageSeq" = COALESCE((SELECT MAX("seq") FROM "Message" WHERE "Message"."sessionId" = "ChatSession"."id"), 0);
