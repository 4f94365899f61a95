// Money that reached a settlement wallet without counting toward any payment (unknown memo, wrong
// asset or issuer): never dropped silently, listed here for the merchant to reconcile (decisions.md).
import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { listConnection } from "../../graphql/connection.ts";
import { AssetRef } from "../../graphql/shared-types.ts";
import { formatStroops } from "../../shared/money.ts";
import { networkPassphraseFor } from "../../shared/network.ts";
import { loadSettings } from "../organizations/organizations.service.ts";
import { listUnmatchedLedgerPayments } from "./ledger-payments.store.ts";

const LedgerPaymentType = builder.prismaObject("LedgerPayment", {
  description: "A payment operation that arrived at a settlement wallet on the Stellar ledger",
  fields: (t) => ({
    operationId: t.exposeString("operationId"),
    txHash: t.exposeString("txHash"),
    account: t.exposeString("account", { description: "the settlement wallet it paid" }),
    sourceAccount: t.exposeString("sourceAccount"),
    amount: t.string({ resolve: (p) => formatStroops(p.amount) }),
    asset: t.field({ type: AssetRef, resolve: (p) => ({ code: p.assetCode, issuer: p.assetIssuer }) }),
    sourceAsset: t.field({
      type: AssetRef,
      nullable: true,
      resolve: (p) => (p.sourceAssetCode ? { code: p.sourceAssetCode, issuer: p.sourceAssetIssuer } : null),
    }),
    memoType: t.exposeString("memoType", { nullable: true }),
    memo: t.exposeString("memo", { nullable: true }),
    muxedId: t.exposeString("muxedId", { nullable: true }),
    paymentId: t.exposeString("paymentId", { nullable: true }),
    refundId: t.exposeString("refundId", { nullable: true, description: "the refund sending it back (refundUnmatchedLedgerPayment), while in flight or once sent" }),
    ledgerCreatedAt: t.expose("ledgerCreatedAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  unmatchedLedgerPayments: t.connection({
    type: LedgerPaymentType,
    description: "Payments to this environment's settlement wallet that matched no payment, newest first",
    resolve: async (_root, args, ctx) => {
      const service = requireService(ctx);
      const { settlementAddress } = await loadSettings(service, service.scope);
      const networkPassphrase = networkPassphraseFor(service.scope.environment);
      return listConnection(
        args,
        async (page) =>
          settlementAddress
            ? listUnmatchedLedgerPayments(service, { account: settlementAddress, networkPassphrase }, page)
            : { items: [], hasMore: false },
        (p) => p.operationId,
      );
    },
  }),
}));
