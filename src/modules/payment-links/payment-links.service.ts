// Payment links: reusable; each visit opens a new checkout session (payment source_type
// payment_link). `active` toggles; an inactive link answers visits with 410.
import type { PaymentLink } from "../../generated/sqlite/client.ts";
import { type Deps, type Environment, type ServiceContext, inScope, isInScope } from "../../context.ts";
import { gone, notFound } from "../../errors.ts";
import { parseAssetList, serializeAssetList } from "../../shared/assets.ts";
import { deserializeMetadata, serializeMetadata } from "../../shared/validation.ts";
import { preparePayment, retryOnMemoCollision } from "../payments/payments.service.ts";
import { directSql } from "../../db/client.ts";
import { newCheckoutSessionWrites } from "../checkout-sessions/checkout-sessions.service.ts";
import type { CheckoutSessionWithPayment } from "../checkout-sessions/checkout-sessions.view.ts";
import type { CreatePaymentLinkInput } from "./payment-links.inputs.ts";
import { findPaymentLink, insertPaymentLink, savePaymentLinkActive } from "./payment-links.store.ts";

/** How long the checkout session a visit opens stays payable. */
const VISIT_SESSION_MINUTES = 60;

/** Whether a visit opens a checkout session (else it is answered 410 and the checkout shows it inactive). */
export const isPaymentLinkActive = (link: Pick<PaymentLink, "active">) => link.active;

export async function createPaymentLink(ctx: ServiceContext, input: CreatePaymentLinkInput): Promise<PaymentLink> {
  const now = ctx.clock.now();
  // The same checks as a payment (wallet configured, assets enabled); the terms are kept on the link.
  const terms = await preparePayment(ctx, { ...input, expires_at: now });
  const link: PaymentLink = {
    id: ctx.ids.newId("plink"),
    ...inScope(ctx.scope),
    amount: terms.amount,
    settlementAssetCode: terms.settlementAsset.code,
    settlementAssetIssuer: terms.settlementAsset.issuer,
    allowedAssets: serializeAssetList(terms.allowedAssets),
    active: true,
    description: terms.description,
    metadata: serializeMetadata(terms.metadata),
    createdAt: now,
    updatedAt: now,
  };
  await insertPaymentLink(ctx.db, link);
  return link;
}

export async function getPaymentLink(ctx: ServiceContext, id: string): Promise<PaymentLink> {
  const link = await findPaymentLink(ctx.db, id);
  if (!link || !isInScope(link, ctx.scope)) throw notFound();
  return link;
}

/** Sets `active`; setting it to what it already is changes nothing and is not an error. */
export async function setPaymentLinkActive(ctx: ServiceContext, id: string, active: boolean): Promise<PaymentLink> {
  const link = await getPaymentLink(ctx, id);
  if (link.active === active) return link;
  const updated = await savePaymentLinkActive(ctx.db, id, active, ctx.clock.now());
  if (!updated) throw notFound();
  return updated;
}

/**
 * A public visit (no API key): opens a new checkout session in the link's organization and
 * environment. Unknown link: 404; inactive: 410.
 */
export async function visitPaymentLink(deps: Deps, id: string): Promise<CheckoutSessionWithPayment> {
  const link = await findPaymentLink(deps.db, id);
  if (!link) throw notFound();
  if (!isPaymentLinkActive(link)) throw gone("This payment link is inactive");
  const ctx: ServiceContext = {
    ...deps,
    scope: { organizationId: link.organizationId, environment: link.environment as Environment, principal: { kind: "key", id: "", role: "admin" } },
  };
  const now = ctx.clock.now();
  const draft = await preparePayment(ctx, {
    amount: link.amount,
    settlement_asset: { code: link.settlementAssetCode, issuer: link.settlementAssetIssuer },
    allowed_assets: parseAssetList(link.allowedAssets),
    description: link.description,
    metadata: deserializeMetadata(link.metadata),
    expires_at: new Date(now.getTime() + VISIT_SESSION_MINUTES * 60_000),
  });
  return retryOnMemoCollision(async () => {
    const { session, statements } = newCheckoutSessionWrites(ctx, draft, { sourceType: "payment_link", paymentLinkId: link.id }, now);
    await directSql(ctx.db).batch(statements);
    return session;
  });
}
