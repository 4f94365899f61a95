// Imports every resource's GraphQL definitions, then builds the schema. Nothing else.
import { lexicographicSortSchema, printSchema } from "graphql";
import { builder } from "./builder.ts";
import { guardFieldArguments } from "./field-guards.ts";
import "../modules/payments/payments.graphql.ts";
import "../modules/payments/payment-instructions.graphql.ts";
import "../modules/ledger-payments/ledger-payments.graphql.ts";
import "../modules/checkout-transactions/checkout-transactions.graphql.ts";
import "../modules/customers/customers.graphql.ts";
import "../modules/payments/payment-completion.graphql.ts";
import "../modules/checkout-sessions/checkout-sessions.graphql.ts";
import "../modules/payment-links/payment-links.graphql.ts";
import "../modules/invoices/invoices.graphql.ts";
import "../modules/webhook-endpoints/webhook-endpoints.graphql.ts";
import "../modules/webhook-deliveries/webhook-deliveries.graphql.ts";
import "../modules/webhook-deliveries/webhook-events.graphql.ts";
import "../modules/checkout/checkout.graphql.ts";
import "../modules/mail/mail.graphql.ts";
import "../modules/api-keys/api-keys.graphql.ts";
import "../modules/organizations/organizations.graphql.ts";
import "../modules/payments/payment-totals.graphql.ts";
import "../modules/payments/payment-history.graphql.ts";
import "../modules/users/users.graphql.ts";
import "../modules/users/invitations.graphql.ts";
import "../modules/users/mail-notices.graphql.ts";
import "../modules/audit/audit.graphql.ts";
import "../modules/refunds/refunds.graphql.ts";

export const schema = guardFieldArguments(builder.toSchema());

/** What schema.graphql holds; a test fails when the committed file drifts from it. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
