-- DropIndex
DROP INDEX "LedgerPayment_account_paymentId_idx";

-- CreateIndex
CREATE INDEX "Payment_organizationId_environment_status_createdAt_id_idx" ON "Payment"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Payment_organizationId_environment_customerId_createdAt_id_idx" ON "Payment"("organizationId", "environment", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Payment_txHash_idx" ON "Payment"("txHash");

-- CreateIndex
CREATE INDEX "CheckoutSession_organizationId_environment_status_createdAt_idx" ON "CheckoutSession"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CheckoutSession_organizationId_environment_customerId_creat_idx" ON "CheckoutSession"("organizationId", "environment", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CheckoutSession_organizationId_environment_paymentLinkId_cr_idx" ON "CheckoutSession"("organizationId", "environment", "paymentLinkId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "PaymentLink_organizationId_environment_active_createdAt_id_idx" ON "PaymentLink"("organizationId", "environment", "active", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Invoice_organizationId_environment_status_createdAt_id_idx" ON "Invoice"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Invoice_organizationId_environment_customerId_createdAt_id_idx" ON "Invoice"("organizationId", "environment", "customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_eventId_idx" ON "WebhookDelivery"("eventId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_endpointId_creat_idx" ON "WebhookDelivery"("organizationId", "environment", "endpointId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_status_createdAt_idx" ON "WebhookDelivery"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_eventType_create_idx" ON "WebhookDelivery"("organizationId", "environment", "eventType", "createdAt", "id");

-- CreateIndex
CREATE INDEX "MailMessage_organizationId_environment_resourceId_createdAt_idx" ON "MailMessage"("organizationId", "environment", "resourceId", "createdAt", "id");


-- CreateIndex (by hand: a partial index, which models.prisma cannot describe)
-- A wallet's unmatched payments, newest on the ledger first: the list of them seeks here.
CREATE INDEX "LedgerPayment_unmatched_idx" ON "LedgerPayment"("account", "networkPassphrase", "ledgerCreatedAt", "operationId") WHERE "paymentId" IS NULL;
