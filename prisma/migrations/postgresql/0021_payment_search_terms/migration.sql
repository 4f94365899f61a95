-- CreateTable
CREATE TABLE "PaymentSearchTerm" (
    "organizationId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "term" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "paymentId" TEXT NOT NULL,

    CONSTRAINT "PaymentSearchTerm_pkey" PRIMARY KEY ("organizationId","environment","term","createdAt","paymentId")
);

