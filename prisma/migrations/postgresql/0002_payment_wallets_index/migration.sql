-- DropIndex
DROP INDEX "Payment_settlementAddress_status_idx";

-- CreateIndex
CREATE INDEX "Payment_wallets_idx" ON "Payment"("status", "settlementAddress", "networkPassphrase", "expiresAt");

