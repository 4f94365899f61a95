-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "manualAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "manualRetryAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "manual" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Event_organizationId_environment_seq_idx" ON "Event"("organizationId", "environment", "seq");

-- CreateIndex
CREATE INDEX "Event_organizationId_environment_type_seq_idx" ON "Event"("organizationId", "environment", "type", "seq");

-- CreateIndex
CREATE INDEX "WebhookDelivery_manualRetryAt_idx" ON "WebhookDelivery"("manualRetryAt");

