// Checkout sessions: one payment each (created in the same transaction), open -> complete | expired.
// Payment links and invoices write the rows of newCheckoutSessionWrites in their own batch; a session
// moves to complete or expired with its payment (payments/payment-completion.ts composes the statements
// of checkout-sessions.store.ts).
import type { CheckoutSession } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { directSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { notFound } from "../../errors.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import { DEFAULT_EXPIRY_MINUTES, type SourceType } from "../payments/payments.inputs.ts";
import { type PaymentDraft, newPaymentWrites, preparePayment, retryOnMemoCollision } from "../payments/payments.service.ts";
import type { CheckoutSessionStatus, CreateCheckoutSessionInput } from "./checkout-sessions.inputs.ts";
import type { CheckoutSessionWithPayment } from "./checkout-sessions.view.ts";
import { findCheckoutSessionWithPayment, insertCheckoutSessionStatement } from "./checkout-sessions.store.ts";

export interface SessionOptions {
  sourceType: Extract<SourceType, "checkout_session" | "payment_link" | "invoice">;
  successUrl?: string | null;
  cancelUrl?: string | null;
  paymentLinkId?: string | null;
}

/** A new open session with its payment (the session expires with it), and the statements that write both. */
export function newCheckoutSessionWrites(
  ctx: ServiceContext,
  draft: PaymentDraft,
  options: SessionOptions,
  now = ctx.clock.now(),
): { session: CheckoutSessionWithPayment; statements: Statement[] } {
  const { payment, statements } = newPaymentWrites(ctx, draft, options.sourceType, now);
  const session: CheckoutSession = {
    id: ctx.ids.newId("cs"),
    ...inScope(ctx.scope),
    status: "open" satisfies CheckoutSessionStatus,
    paymentId: payment.id,
    paymentLinkId: options.paymentLinkId ?? null,
    customerId: draft.customerId,
    successUrl: options.successUrl ?? null,
    cancelUrl: options.cancelUrl ?? null,
    metadata: serializeMetadata(draft.metadata),
    expiresAt: draft.expiresAt,
    createdAt: now,
    updatedAt: now,
  };
  return { session: { ...session, payment }, statements: [...statements, insertCheckoutSessionStatement(ctx.db, session)] };
}

export async function createCheckoutSession(
  ctx: ServiceContext,
  input: CreateCheckoutSessionInput,
): Promise<CheckoutSessionWithPayment> {
  const now = ctx.clock.now();
  const minutes = input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES;
  const draft = await preparePayment(ctx, { ...input, expires_at: new Date(now.getTime() + minutes * 60_000) });
  return retryOnMemoCollision(async () => {
    const { session, statements } = newCheckoutSessionWrites(ctx, draft, {
      sourceType: "checkout_session",
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
    }, now);
    await directSql(ctx.db).batch(statements);
    return session;
  });
}

export async function getCheckoutSession(ctx: ServiceContext, id: string): Promise<CheckoutSessionWithPayment> {
  const session = await findCheckoutSessionWithPayment(ctx.db, id);
  if (!session || !isInScope(session, ctx.scope)) throw notFound();
  return session;
}
