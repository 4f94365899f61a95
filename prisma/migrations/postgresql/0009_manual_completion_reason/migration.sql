-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "manualCompletionReason" TEXT;

