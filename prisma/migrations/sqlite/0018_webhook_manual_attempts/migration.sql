-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "nextRetryAt" DATETIME,
    "responseCode" INTEGER,
    "responseBody" TEXT,
    "lastError" TEXT,
    "requestPayload" TEXT NOT NULL,
    "leaseUntil" DATETIME,
    "manualRetryAt" DATETIME,
    "manualAttempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "WebhookDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_WebhookDelivery" ("attemptCount", "createdAt", "endpointId", "environment", "eventId", "eventType", "id", "lastError", "leaseUntil", "nextRetryAt", "organizationId", "requestPayload", "responseBody", "responseCode", "status", "updatedAt") SELECT "attemptCount", "createdAt", "endpointId", "environment", "eventId", "eventType", "id", "lastError", "leaseUntil", "nextRetryAt", "organizationId", "requestPayload", "responseBody", "responseCode", "status", "updatedAt" FROM "WebhookDelivery";
DROP TABLE "WebhookDelivery";
ALTER TABLE "new_WebhookDelivery" RENAME TO "WebhookDelivery";
CREATE INDEX "WebhookDelivery_status_nextRetryAt_idx" ON "WebhookDelivery"("status", "nextRetryAt");
CREATE INDEX "WebhookDelivery_manualRetryAt_idx" ON "WebhookDelivery"("manualRetryAt");
CREATE INDEX "WebhookDelivery_eventId_idx" ON "WebhookDelivery"("eventId");
CREATE INDEX "WebhookDelivery_status_createdAt_idx" ON "WebhookDelivery"("status", "createdAt");
CREATE INDEX "WebhookDelivery_organizationId_environment_createdAt_id_idx" ON "WebhookDelivery"("organizationId", "environment", "createdAt", "id");
CREATE INDEX "WebhookDelivery_organizationId_environment_endpointId_createdAt_id_idx" ON "WebhookDelivery"("organizationId", "environment", "endpointId", "createdAt", "id");
CREATE INDEX "WebhookDelivery_organizationId_environment_status_createdAt_id_idx" ON "WebhookDelivery"("organizationId", "environment", "status", "createdAt", "id");
CREATE INDEX "WebhookDelivery_organizationId_environment_eventType_createdAt_id_idx" ON "WebhookDelivery"("organizationId", "environment", "eventType", "createdAt", "id");
CREATE UNIQUE INDEX "WebhookDelivery_endpointId_eventId_key" ON "WebhookDelivery"("endpointId", "eventId");
CREATE TABLE "new_WebhookAttempt" (
    "deliveryId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "responseCode" INTEGER,
    "responseBody" TEXT,
    "error" TEXT,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    PRIMARY KEY ("deliveryId", "number"),
    CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_WebhookAttempt" ("deliveryId", "durationMs", "error", "number", "responseBody", "responseCode", "startedAt") SELECT "deliveryId", "durationMs", "error", "number", "responseBody", "responseCode", "startedAt" FROM "WebhookAttempt";
DROP TABLE "WebhookAttempt";
ALTER TABLE "new_WebhookAttempt" RENAME TO "WebhookAttempt";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Event_organizationId_environment_seq_idx" ON "Event"("organizationId", "environment", "seq");

-- CreateIndex
CREATE INDEX "Event_organizationId_environment_type_seq_idx" ON "Event"("organizationId", "environment", "type", "seq");

