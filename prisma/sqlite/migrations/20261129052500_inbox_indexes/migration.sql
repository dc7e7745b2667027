-- CreateIndex
CREATE INDEX "Approval_status_createdAt_id_idx" ON "Approval"("status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Approval_createdAt_id_idx" ON "Approval"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Approval_requesterId_status_createdAt_id_idx" ON "Approval"("requesterId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Approval_toolName_status_createdAt_id_idx" ON "Approval"("toolName", "status", "createdAt", "id");
