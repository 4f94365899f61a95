// Refunds: money that arrived goes back from the settlement wallet, in the asset it arrived in, to
// the account that paid, in a transaction the service prepares and the merchant signs in their own
// wallet. The service never signs and never takes a secret key.
//
//   from                 event                                              to                  emits
//   (none)               create, the destination known                      requires_signature  refund.created
//   (none)               create, the payer must say where (SEP-29, several  pending_claim       refund.created
//                        payers, none known)
//   pending_claim        the payer's claim (/r/<id>)                        requires_signature  (nothing)
//   requires_signature   submit: the signed transaction goes to the ledger  submitted           (nothing)
//   submitted            the network refuses it before any ledger           requires_signature  (nothing)
//   requires_signature,  the ledger has it: through submit, or seen on the  succeeded           refund.succeeded
//   submitted            network stream (signed and sent elsewhere)
//   requires_signature,  its transaction failed in a ledger                 failed              refund.failed
//   submitted
//   pending_claim,       cancel                                             canceled            refund.canceled
//   requires_signature
//
// While in flight (neither succeeded, failed nor canceled) a refund holds its amount of the payment
// (Payment.amountRefunding), or holds the unmatched ledger payment it sends back
// (LedgerPayment.refundId), taken in the same transaction as its insert: two refunds at once never
// send back more than arrived. Every move writes its event in the same transaction.
import type { Payment, Refund } from "../../generated/sqlite/client.ts";
import { type ServiceContext, isInScope } from "../../context.ts";
import { directSql } from "../../db/client.ts";
import type { BatchStep, Statement, StatementResult } from "../../db/direct-sql.ts";
import { DomainError, badRequest, conflict, notFound, unavailable } from "../../errors.ts";
import type { LedgerNetworks, LedgerSource } from "../../ledger/ledger-source.ts";
import { type Asset, isNative, isStellarAddress, sameAsset } from "../../shared/assets.ts";
import { crashPoint } from "../../shared/crash-point.ts";
import { formatStroops } from "../../shared/money.ts";
import { actorOf, auditStatement, auditStatementIn, payerActor } from "../audit/audit.service.ts";
import { eventRow } from "../events/events.service.ts";
import { insertEventsStatement } from "../events/events.store.ts";
import { holdLedgerPaymentForRefundStatement, payersOfPayment, releaseLedgerPaymentStatement } from "../ledger-payments/ledger-payments.store.ts";
import { NOT_A_PAYMENT, unmatchedLedgerPaymentInScope } from "../ledger-payments/unmatched-desk.ts";
import { endRefundStatement, paymentById, reserveRefundStatement } from "../payments/payments.store.ts";
import type { CreateRefundInput, RefundDestination, RefundStatus, RefundUnmatchedInput } from "./refunds.inputs.ts";
import { refundChanges } from "./refund-changes.ts";
import { insertRefundStatement, moveRefundStatement, movedRefundOf, refundById } from "./refunds.store.ts";
import { buildRefundTransaction, checkSignedRefund, sep7TransactionUri } from "./refunds.transaction.ts";
import { type PreparedRefundTransaction, type RefundEventType, refundEvent } from "./refunds.view.ts";

/** A refund's service context: it reaches the ledger (accounts, sequence numbers, submission). */
export type RefundContext = ServiceContext & { ledger: LedgerNetworks };
export type RefundDeps = Omit<RefundContext, "scope">;

/** The context of a door that was given the ledger (the app gives both doors its Ledger). */
export function withLedger<C extends Omit<ServiceContext, "scope">>(ctx: C, ledger: LedgerNetworks | undefined): C & { ledger: LedgerNetworks } {
  if (!ledger) throw unavailable("Refunds need the ledger, which this process does not reach");
  return { ...ctx, ledger };
}

/** What may still go back of a payment: what arrived, less what refunds sent back or hold. */
export const refundableOf = (p: Pick<Payment, "amountReceived" | "amountRefunded" | "amountRefunding">) => {
  const left = p.amountReceived - p.amountRefunded - p.amountRefunding;
  return left > 0n ? left : 0n;
};

const assetOfRefund = (r: Pick<Refund, "assetCode" | "assetIssuer">): Asset => ({ code: r.assetCode, issuer: r.assetIssuer });

/** Where a new refund goes: the destination given, else the one account that paid; else the payer must claim it. */
async function resolveDestination(
  source: LedgerSource,
  given: RefundDestination | undefined,
  payers: () => Promise<string[]>,
): Promise<{ status: RefundStatus; destination: RefundDestination | null }> {
  if (given) {
    await checkDestination(source, given, "destination");
    return { status: "requires_signature", destination: given };
  }
  const accounts = await payers();
  // A contract account (C..., a smart wallet) cannot be paid by a classic payment: its payer claims
  // the refund to an account they name, as one who paid from several accounts does.
  if (accounts.length !== 1 || !isStellarAddress(accounts[0]!)) return { status: "pending_claim", destination: null };
  const account = await source.loadAccount(accounts[0]!);
  // An exchange's account needs the payer's own deposit memo, which only the payer knows.
  if (!account || account.memoRequired) return { status: "pending_claim", destination: null };
  return { status: "requires_signature", destination: { address: account.id, memo: null, memoType: null } };
}

/** A destination must be an account on the ledger, with a memo if it asks for one (SEP-29): a 400 naming `field` otherwise. */
async function checkDestination(source: LedgerSource, destination: RefundDestination, field: string): Promise<void> {
  const account = await source.loadAccount(destination.address);
  if (!account) throw badRequest(`${field}.address is not an account on the ledger`);
  if (account.memoRequired && destination.memo === null) {
    throw badRequest(`${field}.memo is required: the account asks for a memo on every payment it receives (SEP-29)`);
  }
}

function newRefundRow(
  ctx: RefundContext,
  from: { paymentId: string | null; ledgerOperationId: string | null; asset: Asset; sourceAddress: string; networkPassphrase: string },
  input: { amount: bigint; reason: string | null; status: RefundStatus; destination: RefundDestination | null },
): Refund {
  const now = ctx.clock.now();
  return {
    id: ctx.ids.newId("re"),
    organizationId: ctx.scope.organizationId,
    environment: ctx.scope.environment,
    paymentId: from.paymentId,
    ledgerOperationId: from.ledgerOperationId,
    amount: input.amount,
    assetCode: from.asset.code,
    assetIssuer: from.asset.issuer,
    status: input.status,
    reason: input.reason,
    destinationAddress: input.destination?.address ?? null,
    destinationMemo: input.destination?.memo ?? null,
    destinationMemoType: input.destination?.memoType ?? null,
    sourceAddress: from.sourceAddress,
    networkPassphrase: from.networkPassphrase,
    txHash: null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

const eventStatement = (deps: Pick<RefundDeps, "db" | "clock" | "ids" | "config">, refund: Refund, type: RefundEventType): Statement =>
  insertEventsStatement(deps.db, [eventRow(deps, refund, refundEvent(refund, type, deps.config.publicUrl))]);

/** Writes a new refund with its hold, its event and its audit entry, in one transaction. */
async function insertRefund(ctx: RefundContext, refund: Refund, hold: Statement): Promise<Refund> {
  const audit = auditStatement(ctx, await actorOf(ctx), {
    action: "refund.created",
    resourceId: refund.id,
    detail: `${formatStroops(refund.amount)} ${refund.assetCode} of ${refund.paymentId ?? refund.ledgerOperationId}${refund.reason ? `: ${refund.reason}` : ""}`,
  });
  await directSql(ctx.db).batch([hold, insertRefundStatement(ctx.db, refund), eventStatement(ctx, refund, "refund.created"), audit]);
  return refund;
}

/**
 * REST `POST /refunds`, GraphQL `createRefund`: sends back `amount` (all that is refundable by
 * default) of a payment that received money, whatever its status.
 */
export async function createRefund(ctx: RefundContext, input: CreateRefundInput): Promise<Refund> {
  const payment = await paymentById(ctx.db, input.payment_id);
  if (!payment || !isInScope(payment, ctx.scope)) throw badRequest("payment_id does not name a payment", NOT_A_PAYMENT);
  if (payment.amountReceived === 0n) {
    throw badRequest("payment_id has received nothing on the ledger: there is nothing to refund", { path: ["payment_id"], problem: "has received nothing on the ledger: there is nothing to refund" });
  }
  const refundable = refundableOf(payment);
  if (refundable === 0n) {
    throw badRequest("payment_id has nothing left to refund: what it received is refunded or being refunded", {
      path: ["payment_id"],
      problem: "has nothing left to refund: what it received is refunded or being refunded",
    });
  }
  const amount = input.amount ?? refundable;
  const tooMuch = (left: bigint) =>
    badRequest(`amount must be at most ${formatStroops(left)}, what remains refundable on this payment`, { path: ["amount"], problem: `must be at most ${formatStroops(left)}, what remains refundable on this payment` });
  if (amount > refundable) throw tooMuch(refundable);

  const source = ctx.ledger.sourceFor(payment.networkPassphrase);
  const { status, destination } = await resolveDestination(source, input.destination, () => payersOfPayment(ctx.db, payment.id));
  const refund = newRefundRow(
    ctx,
    { paymentId: payment.id, ledgerOperationId: null, asset: { code: payment.settlementAssetCode, issuer: payment.settlementAssetIssuer }, sourceAddress: payment.settlementAddress, networkPassphrase: payment.networkPassphrase },
    { amount, reason: input.reason ?? null, status, destination },
  );
  // Held only if still refundable when written: a refund created meanwhile may have taken it.
  const takenMeanwhile = () => badRequest("amount must be at most what remains refundable on this payment, which refunds created at the same time now hold");
  const hold = reserveRefundStatement(ctx.db, payment.id, amount, takenMeanwhile);
  return insertRefund(ctx, refund, hold);
}

/** The desk (GraphQL `refundUnmatchedLedgerPayment`): sends an unmatched ledger payment back to its sender. */
export async function refundUnmatchedLedgerPayment(ctx: RefundContext, input: RefundUnmatchedInput): Promise<Refund> {
  const unmatched = await unmatchedLedgerPaymentInScope(ctx, input.operation_id);
  const amount = input.amount ?? unmatched.amount;
  if (amount > unmatched.amount) {
    throw badRequest(`amount must be at most ${formatStroops(unmatched.amount)}, what arrived`, { path: ["amount"], problem: `must be at most ${formatStroops(unmatched.amount)}, what arrived` });
  }
  const source = ctx.ledger.sourceFor(unmatched.networkPassphrase);
  const { status, destination } = await resolveDestination(source, input.destination, async () => [unmatched.sourceAccount]);
  const refund = newRefundRow(
    ctx,
    { paymentId: null, ledgerOperationId: unmatched.operationId, asset: { code: unmatched.assetCode, issuer: unmatched.assetIssuer }, sourceAddress: unmatched.account, networkPassphrase: unmatched.networkPassphrase },
    { amount, reason: input.reason ?? null, status, destination },
  );
  const taken = () => conflict("operation_id was applied or sent back meanwhile");
  return insertRefund(ctx, refund, holdLedgerPaymentForRefundStatement(ctx.db, unmatched.networkPassphrase, unmatched.operationId, refund.id, taken));
}

export async function getRefund(ctx: ServiceContext, id: string): Promise<Refund> {
  const refund = await refundById(ctx.db, id);
  if (!refund || !isInScope(refund, ctx.scope)) throw notFound();
  return refund;
}

/** The hold a refund ends with (canceled, failed, succeeded): of its payment, or of the unmatched payment it sent back. */
function endHold(deps: Pick<RefundDeps, "db">, refund: Refund, succeeded: boolean, now: Date): Statement[] {
  if (refund.paymentId) return [endRefundStatement(deps.db, refund.paymentId, refund.amount, succeeded, now)];
  // A refund that sent it back keeps it: the unmatched payment is settled.
  if (refund.ledgerOperationId && !succeeded) return [releaseLedgerPaymentStatement(deps.db, refund.networkPassphrase, refund.ledgerOperationId, refund.id)];
  return [];
}

const notIn = (refund: Refund, action: string) => () => conflict(`Refund is ${refund.status}: it cannot be ${action}`);

/**
 * Appends a refund's final move (succeeded, failed or canceled) to `steps`: the move, the end of its
 * hold and its event, which exist only if the move happens (else the batch fails with `error`).
 * Returns how to read the refund as moved from the batch's results.
 */
export function appendRefundEnd(
  steps: BatchStep[],
  deps: Pick<RefundDeps, "db" | "clock" | "ids" | "config">,
  refund: Refund,
  end: { status: "succeeded" | "failed" | "canceled"; txHash?: string | null; failureReason?: string | null },
  error: () => Error,
): (results: StatementResult[]) => Refund {
  const now = deps.clock.now();
  const from: readonly RefundStatus[] = end.status === "canceled" ? ["pending_claim", "requires_signature"] : ["requires_signature", "submitted"];
  const change = { status: end.status, completedAt: now, ...(end.txHash !== undefined && { txHash: end.txHash }), ...(end.failureReason !== undefined && { failureReason: end.failureReason }) };
  const at = steps.length;
  const moved = (results: StatementResult[]) => movedRefundOf(deps.db, results[at]!.rows);
  steps.push(moveRefundStatement(deps.db, refund, change, from, now, error), ...endHold(deps, refund, end.status === "succeeded", now));
  steps.push((before) => eventStatement(deps, moved(before), `refund.${end.status}`));
  return moved;
}

/** Ends a refund in a batch of its own, with `alongside` (its audit entry); returns it as moved. */
async function endRefund(deps: Pick<RefundDeps, "db" | "clock" | "ids" | "config">, refund: Refund, end: Parameters<typeof appendRefundEnd>[3], error: () => Error, alongside: Statement[] = []): Promise<Refund> {
  const steps: BatchStep[] = [];
  const moved = appendRefundEnd(steps, deps, refund, end, error);
  return moved(await directSql(deps.db).batch([...steps, ...alongside]));
}

/**
 * Runs steps whose first is `refund`'s move, one that writes no outbox event, and tells the open
 * screens (refund-changes.ts); returns the refund as moved.
 */
async function runMove(deps: Pick<RefundDeps, "db" | "config">, refund: Refund, steps: BatchStep[]): Promise<Refund> {
  const results = await directSql(deps.db).batch([...steps, ...refundChanges.notices(deps, [refund])]);
  refundChanges.announce(deps.db, [refund]);
  return movedRefundOf(deps.db, results[0]!.rows);
}

/** A destination as the activity log says it: the address, and its memo if any. */
const destinationText = (d: RefundDestination) => (d.memo === null ? d.address : `${d.address} (memo ${d.memoType ?? "text"} ${d.memo})`);

/** REST `POST /refunds/{id}/cancel`, GraphQL `cancelRefund`: only before its transaction was sent (pending_claim, requires_signature). */
export async function cancelRefund(ctx: ServiceContext, id: string): Promise<Refund> {
  const refund = await getRefund(ctx, id);
  const audit = auditStatement(ctx, await actorOf(ctx), { action: "refund.canceled", resourceId: refund.id });
  return endRefund(ctx, refund, { status: "canceled" }, notIn(refund, "canceled"), [audit]);
}

/**
 * The payer's claim (public, by the refund's id, from /r/<id>): where a pending_claim refund goes.
 * The account must exist and, if it asks for one, come with a memo; a second claim is 409.
 */
export async function claimRefund(deps: RefundDeps, id: string, destination: RefundDestination): Promise<Refund> {
  const refund = await refundById(deps.db, id);
  if (!refund) throw notFound();
  if (refund.status !== "pending_claim") throw conflict(`Refund is ${refund.status}: it was claimed already or is no longer claimable`);
  await checkDestination(deps.ledger.sourceFor(refund.networkPassphrase), destination, "destination");
  const now = deps.clock.now();
  const change = { status: "requires_signature" as const, destinationAddress: destination.address, destinationMemo: destination.memo, destinationMemoType: destination.memoType };
  const claimedMeanwhile = () => conflict("Refund was claimed already");
  // In the merchant's activity log, and so on the refund's timeline: the payer said where it goes.
  const audit = auditStatementIn(deps, refund, payerActor(now), { action: "refund.claimed", resourceId: refund.id, detail: destinationText(destination) });
  return runMove(deps, refund, [moveRefundStatement(deps.db, refund, change, ["pending_claim"], now, claimedMeanwhile), audit]);
}

/**
 * The transaction that pays a refund awaiting its signature, built now with its settlement
 * wallet's current sequence; a claimable balance when the destination has no trustline for the
 * asset. Null in any other status.
 */
export async function prepareRefundTransaction(deps: RefundDeps, refund: Refund): Promise<PreparedRefundTransaction | null> {
  if (refund.status !== "requires_signature") return null;
  const source = deps.ledger.sourceFor(refund.networkPassphrase);
  const [wallet, claimable] = await Promise.all([source.loadAccount(refund.sourceAddress), needsClaimableBalance(source, refund)]);
  if (!wallet) throw badRequest(`The settlement wallet ${refund.sourceAddress} is not an account on the ledger`);
  const xdr = buildRefundTransaction(refund, { sequence: wallet.sequence, claimable, now: deps.clock.now() });
  return { xdr, sep7Uri: sep7TransactionUri(xdr, refund.networkPassphrase), claimableBalance: claimable };
}

/** Whether the refund's destination cannot hold its asset (no trustline): it is paid with a claimable balance. */
export async function needsClaimableBalance(source: LedgerSource, refund: Refund): Promise<boolean> {
  const asset = assetOfRefund(refund);
  if (isNative(asset) || refund.destinationAddress === null || refund.destinationAddress === asset.issuer) return false;
  const destination = await source.loadAccount(refund.destinationAddress, { assets: [asset] });
  return !destination?.balances.some((b) => sameAsset(b.asset, asset));
}

/**
 * REST `POST /refunds/{id}/submit`, GraphQL `submitRefund`: sends the refund's transaction, signed
 * by the settlement wallet's key, to the ledger. Anything but that transaction so signed is a 400
 * naming signed_transaction_xdr and nothing is sent. The network's refusal before any ledger (bad
 * sequence, expired) is a 400 with its result codes and the refund awaits a signature again; a
 * transaction that failed in a ledger fails the refund (its result codes in failure_reason).
 */
export async function submitRefund(ctx: RefundContext, id: string, signedXdr: string): Promise<Refund> {
  const refund = await getRefund(ctx, id);
  if (refund.status !== "requires_signature") throw notIn(refund, "submitted")();
  const { hash } = checkSignedRefund(refund, signedXdr, ctx.clock.now());
  const audit = auditStatement(ctx, await actorOf(ctx), { action: "refund.submitted", resourceId: refund.id, detail: hash });
  // Recorded before it is sent: should this process die before the answer, the ledger stream
  // recognizes the transaction by its hash.
  const submitted = await runMove(ctx, refund, [moveRefundStatement(ctx.db, refund, { status: "submitted", txHash: hash }, ["requires_signature"], ctx.clock.now(), notIn(refund, "submitted")), audit]);
  let result;
  try {
    result = await ctx.ledger.sourceFor(refund.networkPassphrase).submitTransaction(signedXdr);
  } catch (error) {
    // Unknown whether it reached the network: it stays submitted, and the ledger stream settles it if it did.
    throw unavailable(`The network did not answer; the refund stays submitted until its transaction is seen on the ledger (${error instanceof Error ? error.message : "no answer"})`);
  }
  // Test hook (TEST_CRASH_AT, set by tests only): the process dies after the ledger took the
  // transaction and before its answer is recorded (the verifier dies at the same point, should the
  // network stream get there first); restarted, the stream must end the refund.
  crashPoint(ctx.config, "refund-before-answer");
  if (result.successful) return settleRefund(ctx, submitted, { status: "succeeded", txHash: result.hash });
  const codes = [result.resultCodes.transaction, ...result.resultCodes.operations].join(", ");
  if (result.resultCodes.transaction !== "tx_failed") {
    // Refused before any ledger: nothing happened, the merchant may sign a new transaction.
    await runMove(ctx, submitted, [moveRefundStatement(ctx.db, submitted, { status: "requires_signature", txHash: null }, ["submitted"], ctx.clock.now(), () => conflict("Refund moved meanwhile"))]).catch(ignoreConflict);
    throw badRequest(`signed_transaction_xdr was refused by the network: ${codes}`);
  }
  return settleRefund(ctx, submitted, { status: "failed", txHash: result.hash, failureReason: codes });
}

const ignoreConflict = (error: unknown) => {
  if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
};

/** Ends a submitted refund as the ledger said; if the network stream ended it first, the refund as it is. */
async function settleRefund(deps: RefundDeps, refund: Refund, end: { status: "succeeded" | "failed"; txHash: string; failureReason?: string }): Promise<Refund> {
  try {
    return await endRefund(deps, refund, end, () => conflict("Refund moved meanwhile"));
  } catch (error) {
    ignoreConflict(error);
    return (await refundById(deps.db, refund.id))!;
  }
}
