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
