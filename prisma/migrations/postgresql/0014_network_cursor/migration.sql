-- CreateTable
CREATE TABLE "NetworkCursor" (
    "networkPassphrase" TEXT NOT NULL,
    "cursor" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NetworkCursor_pkey" PRIMARY KEY ("networkPassphrase")
);

