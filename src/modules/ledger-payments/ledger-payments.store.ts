// The LedgerPayment table's reads and writes: every payment operation the ledger streamer has seen.
import type { ServiceContext } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type PageRequest, listOf } from "../../db/list-page.ts";

export interface UnmatchedLedgerPaymentFilters {
  /** the settlement wallet they paid */
  account: string;
  networkPassphrase: string;
}

/**
 * Payments to a wallet on a network that matched no payment, newest on the ledger first. Paged by
 * operation id, which is unique on one network.
 */
const unmatchedPaymentsOf = listOf<"LedgerPayment", UnmatchedLedgerPaymentFilters>({
  table: "LedgerPayment",
  where: (eb, f) => eb.and({ paymentId: null, account: f.account, networkPassphrase: f.networkPassphrase }),
  order: { time: "ledgerCreatedAt", key: "operationId" },
});

export const listUnmatchedLedgerPayments = (ctx: Pick<ServiceContext, "db">, filters: UnmatchedLedgerPaymentFilters, page: PageRequest) =>
  unmatchedPaymentsOf(typedSql(ctx.db), filters, page);
