-- AlterTable
ALTER TABLE "User" ADD COLUMN     "notifyInvoicePaid" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "notifyPaymentReceived" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "notifyWebhookFailing" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "failingNoticeAt" TIMESTAMP(3),
ADD COLUMN     "failingSince" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "MailMessage" ADD COLUMN     "htmlBody" TEXT,
ADD COLUMN     "senderName" TEXT;

