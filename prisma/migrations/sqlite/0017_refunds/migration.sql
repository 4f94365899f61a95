-- AlterTable
ALTER TABLE "LedgerPayment" ADD COLUMN "refundId" TEXT;

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "paymentId" TEXT,
    "ledgerOperationId" TEXT,
    "amount" BIGINT NOT NULL,
    "assetCode" TEXT NOT NULL,
    "assetIssuer" TEXT,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "destinationAddress" TEXT,
    "destinationMemo" TEXT,
    "destinationMemoType" TEXT,
    "sourceAddress" TEXT NOT NULL,
    "networkPassphrase" TEXT NOT NULL,
    "txHash" TEXT,
    "failureReason" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Payment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "settlementAssetCode" TEXT NOT NULL,
    "settlementAssetIssuer" TEXT,
    "allowedAssets" TEXT NOT NULL,
    "paidAssetCode" TEXT,
    "paidAssetIssuer" TEXT,
    "status" TEXT NOT NULL,
    "description" TEXT,
    "metadata" TEXT,
    "sourceType" TEXT NOT NULL,
    "customerId" TEXT,
    "payerAddress" TEXT,
    "txHash" TEXT,
    "confirmedAt" DATETIME,
    "expiresAt" DATETIME,
    "pricingCurrency" TEXT,
    "pricingAmount" TEXT,
    "amountReceived" BIGINT NOT NULL DEFAULT 0,
    "amountRefunded" BIGINT NOT NULL DEFAULT 0,
    "amountRefunding" BIGINT NOT NULL DEFAULT 0,
    "late" BOOLEAN NOT NULL DEFAULT false,
    "settlementAddress" TEXT NOT NULL,
    "networkPassphrase" TEXT NOT NULL,
    "memoId" TEXT NOT NULL,
    "failureReason" TEXT,
    "manualCompletionReason" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Payment_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Payment" ("allowedAssets", "amount", "amountReceived", "confirmedAt", "createdAt", "customerId", "description", "environment", "expiresAt", "failureReason", "id", "late", "manualCompletionReason", "memoId", "metadata", "networkPassphrase", "organizationId", "paidAssetCode", "paidAssetIssuer", "payerAddress", "pricingAmount", "pricingCurrency", "settlementAddress", "settlementAssetCode", "settlementAssetIssuer", "sourceType", "status", "txHash", "updatedAt") SELECT "allowedAssets", "amount", "amountReceived", "confirmedAt", "createdAt", "customerId", "description", "environment", "expiresAt", "failureReason", "id", "late", "manualCompletionReason", "memoId", "metadata", "networkPassphrase", "organizationId", "paidAssetCode", "paidAssetIssuer", "payerAddress", "pricingAmount", "pricingCurrency", "settlementAddress", "settlementAssetCode", "settlementAssetIssuer", "sourceType", "status", "txHash", "updatedAt" FROM "Payment";
DROP TABLE "Payment";
ALTER TABLE "new_Payment" RENAME TO "Payment";
CREATE UNIQUE INDEX "Payment_memoId_key" ON "Payment"("memoId");
CREATE INDEX "Payment_organizationId_environment_createdAt_id_idx" ON "Payment"("organizationId", "environment", "createdAt", "id");
CREATE INDEX "Payment_organizationId_environment_status_createdAt_id_idx" ON "Payment"("organizationId", "environment", "status", "createdAt", "id");
CREATE INDEX "Payment_organizationId_environment_customerId_createdAt_id_idx" ON "Payment"("organizationId", "environment", "customerId", "createdAt", "id");
CREATE INDEX "Payment_txHash_idx" ON "Payment"("txHash");
CREATE INDEX "Payment_status_expiresAt_idx" ON "Payment"("status", "expiresAt");
CREATE INDEX "Payment_wallets_idx" ON "Payment"("status", "settlementAddress", "networkPassphrase", "expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Refund_organizationId_environment_createdAt_id_idx" ON "Refund"("organizationId", "environment", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Refund_organizationId_environment_status_createdAt_id_idx" ON "Refund"("organizationId", "environment", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Refund_organizationId_environment_paymentId_createdAt_id_idx" ON "Refund"("organizationId", "environment", "paymentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Refund_sourceAddress_networkPassphrase_status_idx" ON "Refund"("sourceAddress", "networkPassphrase", "status");

-- CreateIndex
CREATE INDEX "Refund_paymentId_idx" ON "Refund"("paymentId");

-- CreateIndex
CREATE INDEX "LedgerPayment_paymentId_idx" ON "LedgerPayment"("paymentId");

