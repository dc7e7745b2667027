-- AlterTable
ALTER TABLE "Approval" ADD COLUMN "requesterNote" TEXT;

-- Before this column, POST /api/approvals stored the requester's own text as the system's "why". Those rows are the
-- ones without a run (approvals the engine asks for always belong to a run): their text becomes the requester's note.
UPDATE "Approval" SET "requesterNote" = "reason", "reason" = 'asked for directly through the API (no policy decision asked for it)' WHERE "runId" IS NULL;
