-- CreateIndex
CREATE INDEX "AuditEntry_resourceId_createdAt_idx" ON "AuditEntry"("resourceId", "createdAt");

