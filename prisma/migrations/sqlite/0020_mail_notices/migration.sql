-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN "failingNoticeAt" DATETIME;
ALTER TABLE "WebhookEndpoint" ADD COLUMN "failingSince" DATETIME;

-- AlterTable
ALTER TABLE "MailMessage" ADD COLUMN "htmlBody" TEXT;
ALTER TABLE "MailMessage" ADD COLUMN "senderName" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "totpSecret" TEXT,
    "totpEnabledAt" DATETIME,
    "recoveryCodeHashes" TEXT,
    "totpLastStep" INTEGER,
    "notifyPaymentReceived" BOOLEAN NOT NULL DEFAULT true,
    "notifyInvoicePaid" BOOLEAN NOT NULL DEFAULT true,
    "notifyWebhookFailing" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "User_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_User" ("createdAt", "email", "id", "organizationId", "passwordHash", "recoveryCodeHashes", "role", "totpEnabledAt", "totpLastStep", "totpSecret", "updatedAt") SELECT "createdAt", "email", "id", "organizationId", "passwordHash", "recoveryCodeHashes", "role", "totpEnabledAt", "totpLastStep", "totpSecret", "updatedAt" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE INDEX "User_organizationId_createdAt_idx" ON "User"("organizationId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

