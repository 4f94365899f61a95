-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "requireTwoFactor" BOOLEAN NOT NULL DEFAULT false;

