-- DropIndex
DROP INDEX "Customer_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "Payment_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "CheckoutSession_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "PaymentLink_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "Invoice_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookEndpoint_organizationId_environment_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_organizationId_environment_createdAt_idx";

-- CreateIndex
CREATE INDEX "Customer_organizationId_environment_createdAt_id_idx" ON "Customer"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Payment_organizationId_environment_createdAt_id_idx" ON "Payment"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CheckoutSession_organizationId_environment_createdAt_id_idx" ON "CheckoutSession"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "PaymentLink_organizationId_environment_createdAt_id_idx" ON "PaymentLink"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Invoice_organizationId_environment_createdAt_id_idx" ON "Invoice"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_organizationId_environment_createdAt_id_idx" ON "WebhookEndpoint"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_createdAt_id_idx" ON "WebhookDelivery"("organizationId", "environment", "createdAt", "id");

