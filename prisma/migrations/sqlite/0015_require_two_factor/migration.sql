-- AlterTable (SQLite adds a column with a constant default in place: no table rebuild)
ALTER TABLE "Organization" ADD COLUMN "requireTwoFactor" BOOLEAN NOT NULL DEFAULT false;
