// The dashboard's home screen: what came in over a chosen range.
import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { AssetRef } from "../../graphql/shared-types.ts";
import type { Asset } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { PAYMENT_STATUSES, type PaymentStatus } from "./payments.inputs.ts";
import { dashboardTotals } from "./payments.service.ts";
import { PaymentStatusEnum } from "./payments.graphql.ts";

const AssetVolume = builder.objectRef<{ asset: Asset; amount: bigint }>("AssetVolume").implement({
  fields: (t) => ({
    asset: t.field({ type: AssetRef, resolve: (v) => v.asset }),
    amount: t.string({ description: "7-decimal string", resolve: (v) => formatStroops(v.amount) }),
  }),
});

const DailyVolume = builder.objectRef<{ day: string; asset: Asset; amount: bigint }>("DailyVolume").implement({
  fields: (t) => ({
    day: t.exposeString("day", { description: "the UTC day, YYYY-MM-DD" }),
    asset: t.field({ type: AssetRef, resolve: (v) => v.asset }),
    amount: t.string({ description: "7-decimal string", resolve: (v) => formatStroops(v.amount) }),
  }),
});

const StatusCount = builder.objectRef<{ status: PaymentStatus; count: number }>("PaymentStatusCount").implement({
  fields: (t) => ({
    status: t.field({ type: PaymentStatusEnum, resolve: (c) => c.status }),
    count: t.exposeInt("count"),
  }),
});

type CurrencyVolume = Awaited<ReturnType<typeof dashboardTotals>>["inCurrencies"][number];

const AssetValue = builder.objectRef<CurrencyVolume["perAsset"][number]>("AssetValue").implement({
  fields: (t) => ({
    asset: t.field({ type: AssetRef, resolve: (v) => v.asset }),
    amount: t.string({ description: "in the currency, a 7-decimal string", resolve: (v) => formatStroops(v.value) }),
  }),
});

const CurrencyTotal = builder.objectRef<CurrencyVolume>("CurrencyTotal").implement({
  description: "The completed volume in a currency the organization has an exchange rate for, at today's rates",
  fields: (t) => ({
    currency: t.exposeString("currency", { description: "ISO 4217" }),
    amount: t.string({ description: "the assets that have a price in the currency, together; a 7-decimal string", resolve: (c) => formatStroops(c.total) }),
    perAsset: t.field({ type: [AssetValue], description: "each asset with a price in the currency", resolve: (c) => c.perAsset }),
    assetsWithoutRate: t.field({
      type: [AssetRef],
      description: "assets with completed volume but no rate to the currency (and no 1:1 stablecoin): not in amount",
      resolve: (c) => c.assetsWithoutRate,
    }),
  }),
});

const DashboardTotals = builder.objectRef<Awaited<ReturnType<typeof dashboardTotals>>>("DashboardTotals").implement({
  description: "The payments created in [from, to)",
  fields: (t) => ({
    volume: t.field({
      type: [AssetVolume],
      description: "the amount of the completed payments, per settlement asset",
      resolve: (totals) => totals.volumes,
    }),
    daily: t.field({
      type: [DailyVolume],
      description: "the amount of the completed payments per UTC day of their creation and settlement asset, oldest first; days without any are left out",
      resolve: (totals) => totals.daily,
    }),
    inCurrencies: t.field({
      type: [CurrencyTotal],
      description: "the completed volume in each currency the organization has a rate for (setExchangeRate), at today's rates",
      resolve: (totals) => totals.inCurrencies,
    }),
    countsByStatus: t.field({
      type: [StatusCount],
      description: "every status, zero included, in the order pending, completed, failed, expired",
      resolve: (totals) => PAYMENT_STATUSES.map((status) => ({ status, count: totals.counts.find((c) => c.status === status)?.count ?? 0 })),
    }),
  }),
});

builder.queryFields((t) => ({
  dashboardTotals: t.field({
    type: DashboardTotals,
    args: { from: t.arg({ type: "DateTime", required: true }), to: t.arg({ type: "DateTime", required: true }) },
    resolve: (_root, { from, to }, ctx) => dashboardTotals(requireService(ctx), { from, to }),
  }),
}));
