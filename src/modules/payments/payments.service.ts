// Payments (payment intents): creation with every rule of the spec and decisions, reads and lists.
// Other resources (checkout sessions, links, invoices) create their payment through
// preparePayment + newPaymentWrites, written in the same batch as their own rows.
import type { Payment } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { type Tx, directSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { DomainError, badRequest, notFound } from "../../errors.ts";
import { type Asset, XLM, assetKey, sameAsset, serializeAssetList } from "../../shared/assets.ts";
import { MAX_AMOUNT, MAX_STROOPS, convertToStroops, normalizeDecimal, valueAtPrice } from "../../shared/money.ts";
import { networkPassphraseFor } from "../../shared/network.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import { type EnvironmentSettingsView, loadRecentSettings, loadSettings } from "../organizations/organizations.service.ts";
import { eventRow, recordEvent } from "../events/events.service.ts";
import { insertEventUnlessUntakenStatement } from "../events/events.store.ts";
import { findCustomerInScope } from "../customers/customers.service.ts";
import { type CreatePaymentInput, DEFAULT_EXPIRY_MINUTES, type PaymentStatus, type SourceType } from "./payments.inputs.ts";
import { insertPaymentStatement, paymentById, paymentTotals } from "./payments.store.ts";
import { insertNewPaymentTermsStatement } from "./payment-search.ts";
import { type PaymentEventType, paymentEvent } from "./payments.view.ts";

/** Everything a payment row needs, checked against the organization's settings; nothing written yet. */
export interface PaymentDraft {
  amount: bigint;
  settlementAsset: Asset;
  allowedAssets: Asset[];
  settlementAddress: string;
  pricingCurrency: string | null;
  pricingAmount: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  customerId: string | null;
  expiresAt: Date;
}

export interface PaymentTerms {
  amount?: bigint;
  pricing_currency?: string;
  pricing_amount?: string;
  settlement_asset?: Asset;
  asset?: string;
  allowed_assets?: Asset[];
  description?: string | null;
  metadata?: Record<string, string> | null;
  customer_id?: string | null;
  expires_at: Date;
}

/** `path`: the field as the input names it (["allowed_assets", 0]); the REST message spells it allowed_assets[0]. */
function requireEnabled(settings: EnvironmentSettingsView, asset: Asset, path: (string | number)[]): Asset {
  if (!settings.enabledAssets.some((a) => sameAsset(a, asset))) {
    const field = path.map((part) => (typeof part === "number" ? `[${part}]` : part)).join("");
    throw badRequest(`${field} ${assetKey(asset)} is not enabled for this organization`, { path, problem: notEnabled(asset.code) });
  }
  return asset;
}

/** A payment or invoice asked of an environment with nowhere to settle (the spec's message on REST). */
export const noSettlementWallet = () =>
  badRequest("Settlement wallet is not configured", { path: [], problem: "", words: "No settlement wallet yet: set the wallet payments are paid to in Settings first" });

/** What a person reads about an asset not enabled (a field's phrase). */
const notEnabled = (code: string) => `${code} is not one of your enabled assets; enable it in Settings, or choose another`;

/** Stablecoins named after their currency (USDC, USDT for USD; EURC for EUR) convert 1:1 when no rate is set. */
const isPeggedTo = (asset: Asset, currency: string) => asset.issuer !== null && asset.code.toUpperCase().startsWith(currency);

/** What one unit of `asset` costs in `currency`: the merchant's rate, else 1 for a stablecoin of that currency, else null. */
function priceIn(settings: Pick<EnvironmentSettingsView, "rates">, currency: string, asset: Asset): string | null {
  const rate = settings.rates.find((r) => r.currency === currency && sameAsset(r.asset, asset));
  return rate?.price ?? (isPeggedTo(asset, currency) ? "1" : null);
}

function convertPricing(settings: EnvironmentSettingsView, currency: string, pricingAmount: string, asset: Asset): bigint {
  const price = priceIn(settings, currency, asset);
  if (price === null) {
    throw badRequest(`No exchange rate for ${currency} to ${asset.code}`, {
      path: ["pricing_currency"],
      problem: `no rate from ${currency} to ${asset.code} is set; add one in Settings, or give the amount in ${asset.code}`,
    });
  }
  const amount = convertToStroops(pricingAmount, price);
  if (amount > MAX_STROOPS) {
    throw badRequest(`pricing_amount converts to more than ${MAX_AMOUNT} ${asset.code}, the maximum amount`, {
      path: ["pricing_amount"],
      problem: `must convert to at most ${MAX_AMOUNT} ${asset.code}, the largest amount a payment can have`,
    });
  }
  return amount;
}

export async function requireCustomer(ctx: ServiceContext, customerId: string | null | undefined): Promise<string | null> {
  if (customerId == null) return null;
  const customer = await findCustomerInScope(ctx, customerId);
  if (!customer) throw badRequest("customer_id does not name a customer", { path: ["customer_id"], problem: "", words: "Customer: not one of your customers; pick one from the list or add a new one" });
  return customer.id;
}

/**
 * The checked terms of a new payment, on the environment's recent settings (loadRecentSettings). A
 * refusal is made on settings read for it: a wallet, asset or rate set a moment ago on another
 * process or host is never refused for an older read.
 */
export async function preparePayment(ctx: ServiceContext, terms: PaymentTerms): Promise<PaymentDraft> {
  const recent = await loadRecentSettings(ctx, ctx.scope);
  try {
    return await draftOf(ctx, terms, recent.settings);
  } catch (error) {
    if (recent.readNow || !(error instanceof DomainError)) throw error;
    return draftOf(ctx, terms, (await loadRecentSettings(ctx, ctx.scope, true)).settings);
  }
}

async function draftOf(ctx: ServiceContext, terms: PaymentTerms, settings: EnvironmentSettingsView): Promise<PaymentDraft> {
  if (!settings.settlementAddress) throw noSettlementWallet();

  let settlementAsset = XLM;
  if (terms.settlement_asset) {
    settlementAsset = requireEnabled(settings, terms.settlement_asset, ["settlement_asset"]);
  } else if (terms.asset) {
    const named = settings.enabledAssets.filter((a) => a.code === terms.asset);
    if (named.length === 0) throw badRequest(`asset ${terms.asset} is not enabled for this organization`, { path: ["asset"], problem: notEnabled(terms.asset) });
    if (named.length > 1) {
      throw badRequest(`asset ${terms.asset} is ambiguous: give settlement_asset with its issuer`, {
        path: ["asset"],
        problem: `several ${terms.asset} assets are enabled; choose the settlement asset with its issuer`,
      });
    }
    settlementAsset = named[0]!;
  }
  const allowedAssets = terms.allowed_assets
    ? terms.allowed_assets.map((a, i) => requireEnabled(settings, a, ["allowed_assets", i]))
    : settings.enabledAssets;

  const pricingAmount = terms.pricing_amount ? normalizeDecimal(terms.pricing_amount) : null;
  const amount =
    terms.amount ?? convertPricing(settings, terms.pricing_currency!, terms.pricing_amount!, settlementAsset);

  return {
    amount,
    settlementAsset,
    allowedAssets,
    settlementAddress: settings.settlementAddress,
    pricingCurrency: terms.pricing_currency ?? null,
    pricingAmount,
    description: terms.description ?? null,
    metadata: terms.metadata ?? null,
    customerId: await requireCustomer(ctx, terms.customer_id),
    expiresAt: terms.expires_at,
  };
}

/** The complete row of a new pending payment, defaults included, exactly as it will be stored. */
function newPaymentRow(ctx: ServiceContext, draft: PaymentDraft, sourceType: SourceType, now: Date): Payment {
  return {
    id: ctx.ids.newId("pay"),
    ...inScope(ctx.scope),
    amount: draft.amount,
    settlementAssetCode: draft.settlementAsset.code,
    settlementAssetIssuer: draft.settlementAsset.issuer,
    allowedAssets: serializeAssetList(draft.allowedAssets),
    paidAssetCode: null,
    paidAssetIssuer: null,
    status: "pending" satisfies PaymentStatus,
    description: draft.description,
    metadata: serializeMetadata(draft.metadata),
    sourceType,
    customerId: draft.customerId,
    payerAddress: null,
    txHash: null,
    confirmedAt: null,
    expiresAt: draft.expiresAt,
    pricingCurrency: draft.pricingCurrency,
    pricingAmount: draft.pricingAmount,
    amountReceived: 0n,
    amountRefunded: 0n,
    amountRefunding: 0n,
    late: false,
    settlementAddress: draft.settlementAddress,
    networkPassphrase: networkPassphraseFor(ctx.scope.environment),
    memoId: ctx.ids.newMemoId(),
    failureReason: null,
    manualCompletionReason: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A new pending payment and the statements that write it with its `payment.created` event. */
export function newPaymentWrites(
  ctx: ServiceContext,
  draft: PaymentDraft,
  sourceType: SourceType,
  now = ctx.clock.now(),
): { payment: Payment; statements: Statement[] } {
  const payment = newPaymentRow(ctx, draft, sourceType, now);
  const event = eventRow(ctx, payment, paymentEvent(payment, "payment.created", ctx.config.publicUrl));
  return {
    payment,
    statements: [insertPaymentStatement(ctx.db, payment), insertNewPaymentTermsStatement(ctx.db, payment), insertEventUnlessUntakenStatement(ctx.db, event)],
  };
}

/** Writes the event of a payment's move in the caller's Prisma transaction. */
export function recordPaymentEvent(tx: Tx, ctx: Pick<ServiceContext, "clock" | "ids" | "config">, payment: Payment, type: PaymentEventType) {
  return recordEvent(tx, ctx, payment, paymentEvent(payment, type, ctx.config.publicUrl));
}

/** Whether a write failed only because the new payment's memo id was taken already (see timeOrderedIds). */
function isMemoCollision(error: unknown): boolean {
  const { code, constraint, message } = error as { code?: string; constraint?: string; message?: string };
  if (code === "23505") return constraint === "Payment_memoId_key"; // PostgreSQL
  return code === "SQLITE_CONSTRAINT_UNIQUE" && message === "UNIQUE constraint failed: Payment.memoId";
}

/**
 * Runs `write`, which makes a new payment's rows and writes them, again while it fails on a memo id
 * drawn twice: rare (two payments in one millisecond drawing the same 22 random bits), and all or
 * nothing, since the batch that failed rolled back.
 */
export async function retryOnMemoCollision<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt === 5 || !isMemoCollision(error)) throw error;
    }
  }
}

export async function createPayment(ctx: ServiceContext, input: CreatePaymentInput): Promise<Payment> {
  const now = ctx.clock.now();
  const minutes = input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES;
  const draft = await preparePayment(ctx, { ...input, expires_at: new Date(now.getTime() + minutes * 60_000) });
  return retryOnMemoCollision(async () => {
    const { payment, statements } = newPaymentWrites(ctx, draft, "direct", now);
    await directSql(ctx.db).batch(statements);
    return payment;
  });
}

export async function getPayment(ctx: ServiceContext, id: string): Promise<Payment> {
  const payment = await paymentById(ctx.db, id);
  if (!payment || !isInScope(payment, ctx.scope)) throw notFound();
  return payment;
}

/**
 * The home screen's totals over [from, to): the payments created in it, counted per status, and the
 * amount of the completed ones per settlement asset (what was asked, not overpayments).
 */
export async function dashboardTotals(ctx: ServiceContext, range: { from: Date; to: Date }) {
  if (range.from >= range.to) throw badRequest("to must be later than from", { path: ["to"], problem: "must be later than the start (from)" });
  const [totals, settings] = await Promise.all([paymentTotals(ctx, range), loadSettings(ctx, ctx.scope)]);
  return { ...totals, inCurrencies: volumesInCurrencies(settings, totals.volumes) };
}

/**
 * The completed volume in each currency the merchant has a rate for, at today's rates (what the money
 * is worth now, as BTCPay's store balance shows it): per asset, and in all over the assets that have
 * a price; the assets with none are named, never counted as zero. Exact: ten-millionths of the currency.
 */
function volumesInCurrencies(settings: Pick<EnvironmentSettingsView, "rates">, volumes: { asset: Asset; amount: bigint }[]) {
  const currencies = [...new Set(settings.rates.map((r) => r.currency))].sort();
  return currencies.map((currency) => {
    const priced = volumes.map((v) => ({ asset: v.asset, price: priceIn(settings, currency, v.asset), amount: v.amount }));
    const perAsset = priced.flatMap((v) => (v.price === null ? [] : [{ asset: v.asset, value: valueAtPrice(v.amount, v.price) }]));
    return {
      currency,
      total: perAsset.reduce((sum, v) => sum + v.value, 0n),
      perAsset,
      assetsWithoutRate: priced.filter((v) => v.price === null).map((v) => v.asset),
    };
  });
}
