-- DropIndex
DROP INDEX "WebhookEndpoint_organizationId_environment_createdAt_id_idx";

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
CREATE INDEX "WebhookEndpoint_organizationId_environment_deletedAt_create_idx" ON "WebhookEndpoint"("organizationId", "environment", "deletedAt", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_eventId_idx" ON "WebhookDelivery"("eventId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_endpointId_creat_idx" ON "WebhookDelivery"("organizationId", "environment", "endpointId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_status_createdAt_idx" ON "WebhookDelivery"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_organizationId_environment_eventType_create_idx" ON "WebhookDelivery"("organizationId", "environment", "eventType", "createdAt", "id");

-- CreateIndex
CREATE INDEX "LedgerPayment_account_paymentId_networkPassphrase_ledgerCre_idx" ON "LedgerPayment"("account", "paymentId", "networkPassphrase", "ledgerCreatedAt", "operationId");

-- CreateIndex
CREATE INDEX "MailMessage_organizationId_environment_resourceId_createdAt_idx" ON "MailMessage"("organizationId", "environment", "resourceId", "createdAt", "id");

