-- CreateTable
CREATE TABLE "NetworkCursor" (
    "networkPassphrase" TEXT NOT NULL PRIMARY KEY,
    "cursor" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

