-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "amountRefunded" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "amountRefunding" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "LedgerPayment" ADD COLUMN     "refundId" TEXT;

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

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

