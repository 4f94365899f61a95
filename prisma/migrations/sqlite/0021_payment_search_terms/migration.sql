-- CreateTable
CREATE TABLE "PaymentSearchTerm" (
    "organizationId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "term" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "paymentId" TEXT NOT NULL,

    PRIMARY KEY ("organizationId", "environment", "term", "createdAt", "paymentId")
);

