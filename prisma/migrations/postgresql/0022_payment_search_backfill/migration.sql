-- CreateTable
CREATE TABLE "Backfill" (
    "name" TEXT NOT NULL,
    "afterId" TEXT,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Backfill_pkey" PRIMARY KEY ("name")
);


-- Payments made before 0021 have no search terms: a database that has payments gets the walk that
-- writes them (payments/payment-search-backfill.ts); a new one has nothing to walk.
INSERT INTO "Backfill" ("name") SELECT 'payment-search-terms' WHERE EXISTS (SELECT 1 FROM "Payment");
