// The operations the simulated network executes, with stellar-core's result codes and check order.
// Two phases, as in stellar-core: checkOperation() is the static validity check done when a
// transaction is submitted (a malformed operation gets the transaction rejected without a fee), and
// applyOperation() runs when the ledger closes, against the state the ledger has by then.
import { Asset, type Claimant, type Operation, xdr } from "@stellar/stellar-sdk";
import { INT64_MAX, InvalidAmountError, parseAmount } from "./amounts.ts";
import { type AccountRef, accountRef, assetKey } from "./assets.ts";
import { convertStrictReceive, convertStrictSend } from "./order-book.ts";
import type { OpOutcome, OpReason, PathPaymentSuccess } from "./result-xdr.ts";
import { type LedgerOverlay, BASE_RESERVE, availableBalance, minimumBalance, newAccount, trustlineOf } from "./state.ts";

const MAX_PATH_LENGTH = 5;
/** stellar-core's limit of claimants per claimable balance. */
const MAX_CLAIMANTS = 10;
/** The hex of a ClaimableBalanceId XDR: type v0 ("00000000") and a 32-byte hash. */
const BALANCE_ID = /^00000000[0-9a-f]{64}$/i;

/** Signed amount from the SDK's decimal string; undefined if it is not a valid amount at all. */
function amountOf(text: string): bigint | undefined {
  try {
    return text.startsWith("-") ? -parseAmount(text.slice(1)) : parseAmount(text);
  } catch (error) {
    if (error instanceof InvalidAmountError) return undefined;
    throw error;
  }
}

const positive = (text: string): boolean => {
  const amount = amountOf(text);
  return amount !== undefined && amount > 0n;
};

/** The operation's source: its own, or the transaction's. */
export const operationSource = (op: Operation, txSource: string): AccountRef => accountRef(op.source ?? txSource);

/** stellar-core's static checks. Returns the failing outcome, or null if the operation is well formed. */
export function checkOperation(op: Operation, source: AccountRef): OpOutcome | null {
  const fail = (code: OpReason): OpOutcome => ({ type: op.type, code });
  switch (op.type) {
    case "createAccount": {
      const starting = amountOf(op.startingBalance);
      if (starting === undefined || starting < 0n) return fail("malformed");
      if (accountRef(op.destination).account === source.account) return fail("malformed");
      return null;
    }
    case "payment":
      return positive(op.amount) ? null : fail("malformed");
    case "pathPaymentStrictReceive":
      if (!positive(op.destAmount) || !positive(op.sendMax) || op.path.length > MAX_PATH_LENGTH) return fail("malformed");
      return null;
    case "pathPaymentStrictSend":
      if (!positive(op.sendAmount) || !positive(op.destMin) || op.path.length > MAX_PATH_LENGTH) return fail("malformed");
      return null;
    case "changeTrust": {
      if (!(op.line instanceof Asset)) return { type: op.type, code: "opNotSupported" }; // liquidity pool shares
      const limit = amountOf(op.limit);
      if (op.line.isNative() || limit === undefined || limit < 0n) return fail("malformed");
      // Since protocol 16 a trustline to one's own asset is malformed (it was SELF_NOT_ALLOWED).
      if (op.line.getIssuer() === source.account) return fail("malformed");
      return null;
    }
    case "manageData":
      if (op.name.length === 0 || op.name.length > 64 || (op.value != null && op.value.length > 64)) {
        return fail("invalidName");
      }
      return null;
    case "bumpSequence":
      return BigInt(op.bumpTo) < 0n ? fail("badSeq") : null;
    case "accountMerge":
      return accountRef(op.destination).account === source.account ? fail("malformed") : null;
    case "createClaimableBalance": {
      const destinations = op.claimants.map((claimant) => claimant.destination);
      const wellFormed =
        positive(op.amount) && destinations.length > 0 && destinations.length <= MAX_CLAIMANTS && new Set(destinations).size === destinations.length;
      return wellFormed && op.claimants.every((claimant) => predicateWellFormed(claimant.predicate, 1)) ? null : fail("malformed");
    }
    case "claimClaimableBalance":
      // A malformed id does not decode; stellar-core finds no such balance.
      return BALANCE_ID.test(op.balanceId) ? null : fail("doesNotExist");
    default:
      return { type: op.type, code: "opNotSupported" };
  }
}

/** stellar-core's check of a claim predicate: at most 4 levels, and/or of two, no negative times. */
function predicateWellFormed(predicate: xdr.ClaimPredicate, depth: number): boolean {
  if (depth > 4) return false;
  switch (predicate.switch().name) {
    case "claimPredicateUnconditional":
      return true;
    case "claimPredicateAnd":
      return predicate.andPredicates().length === 2 && predicate.andPredicates().every((p) => predicateWellFormed(p, depth + 1));
    case "claimPredicateOr":
      return predicate.orPredicates().length === 2 && predicate.orPredicates().every((p) => predicateWellFormed(p, depth + 1));
    case "claimPredicateNot": {
      const inner = predicate.notPredicate();
      return inner !== null && inner !== undefined && predicateWellFormed(inner, depth + 1);
    }
    case "claimPredicateBeforeAbsoluteTime":
      return BigInt(predicate.absBefore().toString()) >= 0n;
    case "claimPredicateBeforeRelativeTime":
      return BigInt(predicate.relBefore().toString()) >= 0n;
    default:
      return false;
  }
}

/** The predicate as kept in the ledger: relative times become absolute from the close time (as stellar-core does). */
function absolutePredicate(predicate: xdr.ClaimPredicate, closeSeconds: bigint): xdr.ClaimPredicate {
  switch (predicate.switch().name) {
    case "claimPredicateAnd":
      return xdr.ClaimPredicate.claimPredicateAnd(predicate.andPredicates().map((p) => absolutePredicate(p, closeSeconds)));
    case "claimPredicateOr":
      return xdr.ClaimPredicate.claimPredicateOr(predicate.orPredicates().map((p) => absolutePredicate(p, closeSeconds)));
    case "claimPredicateNot":
      return xdr.ClaimPredicate.claimPredicateNot(absolutePredicate(predicate.notPredicate()!, closeSeconds));
    case "claimPredicateBeforeRelativeTime": {
      const until = closeSeconds + BigInt(predicate.relBefore().toString());
      return xdr.ClaimPredicate.claimPredicateBeforeAbsoluteTime(xdr.Int64.fromString((until > INT64_MAX ? INT64_MAX : until).toString()));
    }
    default:
      return predicate;
  }
}

/** Whether an (absolute) predicate holds at the close time. */
function predicateHolds(predicate: xdr.ClaimPredicate, closeSeconds: bigint): boolean {
  switch (predicate.switch().name) {
    case "claimPredicateUnconditional":
      return true;
    case "claimPredicateAnd":
      return predicate.andPredicates().every((p) => predicateHolds(p, closeSeconds));
    case "claimPredicateOr":
      return predicate.orPredicates().some((p) => predicateHolds(p, closeSeconds));
    case "claimPredicateNot":
      return !predicateHolds(predicate.notPredicate()!, closeSeconds);
    case "claimPredicateBeforeAbsoluteTime":
      return closeSeconds < BigInt(predicate.absBefore().toString());
    default:
      return false;
  }
}

export interface OperationContext {
  ledger: number;
  closeTime: Date;
  source: AccountRef;
  /** the id a claimable balance this operation creates gets (from the transaction's source, sequence and the operation's index) */
  claimableBalanceId(): string;
}

/** Applies a well-formed operation to `scope`. On failure the caller drops the scope. */
export function applyOperation(op: Operation, scope: LedgerOverlay, ctx: OperationContext): OpOutcome {
  const src = ctx.source.account;
  if (!scope.exists(src)) return { type: op.type, code: "opNoAccount" };
  const outcome = (code: OpReason, pathPayment?: PathPaymentSuccess): OpOutcome =>
    pathPayment ? { type: op.type, code, pathPayment } : { type: op.type, code };

  switch (op.type) {
    case "createAccount": {
      const destination = accountRef(op.destination).account;
      const starting = parseAmount(op.startingBalance);
      if (scope.exists(destination)) return outcome("alreadyExist");
      if (starting < 2n * BASE_RESERVE) return outcome("lowReserve");
      const reason = debit(scope, src, Asset.native(), starting);
      if (reason) return outcome(reason);
      scope.create(newAccount(destination, starting, ctx.ledger, ctx.closeTime));
      return outcome("success");
    }

    case "payment": {
      const destination = accountRef(op.destination).account;
      const amount = parseAmount(op.amount);
      if (!scope.exists(destination)) return outcome("noDestination");
      // stellar-core short-cuts a native payment to oneself: nothing moves, nothing is checked.
      if (op.asset.isNative() && destination === src) return outcome("success");
      return outcome(credit(scope, destination, op.asset, amount) ?? debit(scope, src, op.asset, amount) ?? "success");
    }

    case "pathPaymentStrictReceive": {
      const destination = accountRef(op.destination).account;
      const destAmount = parseAmount(op.destAmount);
      if (!scope.exists(destination)) return outcome("noDestination");
      const creditReason = credit(scope, destination, op.destAsset, destAmount);
      if (creditReason) return outcome(creditReason);
      const conversion = convertStrictReceive(scope.book, [op.sendAsset, ...op.path, op.destAsset], destAmount);
      if (!conversion) return outcome("tooFewOffers");
      if (conversion.sourceAmount > parseAmount(op.sendMax)) return outcome("overSendmax");
      const debitReason = debit(scope, src, op.sendAsset, conversion.sourceAmount);
      if (debitReason) return outcome(debitReason);
      return outcome("success", {
        fills: conversion.fills,
        destination,
        asset: op.destAsset,
        amount: destAmount,
        sourceAmount: conversion.sourceAmount,
      });
    }

    case "pathPaymentStrictSend": {
      const destination = accountRef(op.destination).account;
      const sendAmount = parseAmount(op.sendAmount);
      if (!scope.exists(destination)) return outcome("noDestination");
      const debitReason = debit(scope, src, op.sendAsset, sendAmount);
      if (debitReason) return outcome(debitReason);
      const conversion = convertStrictSend(scope.book, [op.sendAsset, ...op.path, op.destAsset], sendAmount);
      if (!conversion) return outcome("tooFewOffers");
      if (conversion.destAmount < parseAmount(op.destMin)) return outcome("underDestmin");
      const creditReason = credit(scope, destination, op.destAsset, conversion.destAmount);
      if (creditReason) return outcome(creditReason);
      return outcome("success", {
        fills: conversion.fills,
        destination,
        asset: op.destAsset,
        amount: conversion.destAmount,
        sourceAmount: sendAmount,
      });
    }

    case "changeTrust":
      return outcome(changeTrust(scope, src, op.line as Asset, parseAmount(op.limit), ctx.ledger));

    case "manageData":
      return outcome(manageData(scope, src, op.name, op.value));

    case "createClaimableBalance": {
      const amount = parseAmount(op.amount);
      const sponsor = scope.account(src)!;
      // The creator sponsors the entry: one base reserve per claimant.
      if (availableBalance(sponsor) < BigInt(op.claimants.length) * BASE_RESERVE) return outcome("lowReserve");
      if (!op.asset.isNative() && op.asset.getIssuer() !== src && !trustlineOf(sponsor, op.asset)) return outcome("noTrust");
      const reason = debit(scope, src, op.asset, amount);
      if (reason) return outcome(reason);
      scope.account(src)!.numSponsoring += op.claimants.length;
      const closeSeconds = BigInt(Math.floor(ctx.closeTime.getTime() / 1000));
      const id = ctx.claimableBalanceId();
      scope.setClaimableBalance(id, {
        id,
        asset: op.asset,
        amount,
        claimants: op.claimants.map((claimant: Claimant) => ({ destination: claimant.destination, predicate: absolutePredicate(claimant.predicate, closeSeconds) })),
        sponsor: src,
        lastModifiedLedger: ctx.ledger,
      });
      return { type: op.type, code: "success", balanceId: id };
    }

    case "claimClaimableBalance": {
      const id = op.balanceId.toLowerCase();
      const balance = scope.claimableBalance(id);
      if (!balance) return outcome("doesNotExist");
      const closeSeconds = BigInt(Math.floor(ctx.closeTime.getTime() / 1000));
      const claimant = balance.claimants.find((c) => c.destination === src);
      if (!claimant || !predicateHolds(claimant.predicate, closeSeconds)) return outcome("cannotClaim");
      const reason = credit(scope, src, balance.asset, balance.amount);
      if (reason) return outcome(reason);
      const sponsor = scope.account(balance.sponsor);
      if (sponsor) sponsor.numSponsoring -= balance.claimants.length;
      scope.setClaimableBalance(id, null);
      return { type: op.type, code: "success", claimed: { asset: balance.asset, amount: balance.amount } };
    }

    case "accountMerge": {
      // stellar-core's order of checks (protocol >= 16); the whole native balance moves.
      const destination = accountRef(op.destination).account;
      if (!scope.exists(destination)) return outcome("noAccount");
      const account = scope.peek(src)!;
      if (account.trustlines.size + account.data.size > 0) return outcome("hasSubEntries");
      // An account whose sequence number could be reused by a re-created account cannot merge.
      if (account.sequence >= BigInt(ctx.ledger) << 32n) return outcome("seqnumTooFar");
      if (account.numSponsoring > 0) return outcome("isSponsor");
      const into = scope.account(destination)!;
      if (into.balance + account.balance > INT64_MAX) return outcome("destFull");
      into.balance += account.balance;
      scope.remove(src);
      return { type: op.type, code: "success", merged: account.balance };
    }

    case "bumpSequence": {
      const account = scope.account(src)!;
      const bumpTo = BigInt(op.bumpTo);
      if (bumpTo > account.sequence) {
        account.sequence = bumpTo;
        account.sequenceLedger = ctx.ledger;
        account.sequenceTime = BigInt(Math.floor(ctx.closeTime.getTime() / 1000));
      }
      return outcome("success");
    }

    default:
      return { type: op.type, code: "opNotSupported" };
  }
}

/** Adds `amount` to the account. An issuer receiving its own asset simply burns it. */
export function credit(scope: LedgerOverlay, accountId: string, asset: Asset, amount: bigint): OpReason | null {
  const account = scope.account(accountId)!;
  if (asset.isNative()) {
    if (account.balance + amount > INT64_MAX) return "lineFull";
    account.balance += amount;
    return null;
  }
  if (asset.getIssuer() === accountId) return null;
  const line = trustlineOf(account, asset);
  if (!line) return "noTrust";
  if (line.balance + amount > line.limit) return "lineFull";
  line.balance += amount;
  return null;
}

/** Takes `amount` from the account, keeping its reserve. An issuer sending its own asset mints it. */
function debit(scope: LedgerOverlay, accountId: string, asset: Asset, amount: bigint): OpReason | null {
  const account = scope.account(accountId)!;
  if (asset.isNative()) {
    if (availableBalance(account) < amount) return "underfunded";
    account.balance -= amount;
    return null;
  }
  if (asset.getIssuer() === accountId) return null;
  const line = trustlineOf(account, asset);
  if (!line) return "srcNoTrust";
  if (line.balance < amount) return "underfunded";
  line.balance -= amount;
  return null;
}

function changeTrust(scope: LedgerOverlay, accountId: string, asset: Asset, limit: bigint, ledger: number): OpReason {
  const account = scope.account(accountId)!;
  const key = assetKey(asset);
  const line = account.trustlines.get(key);
  if (line) {
    if (limit === 0n) {
      if (line.balance > 0n) return "invalidLimit";
      account.trustlines.delete(key);
      return "success";
    }
    if (limit < line.balance) return "invalidLimit";
    line.limit = limit;
    return "success";
  }
  if (limit === 0n) return "invalidLimit"; // nothing to remove
  if (!scope.exists(asset.getIssuer())) return "noIssuer";
  if (account.balance < minimumBalance(account, 1)) return "lowReserve";
  account.trustlines.set(key, { asset, balance: 0n, limit, lastModifiedLedger: ledger });
  return "success";
}

function manageData(scope: LedgerOverlay, accountId: string, name: string, value: Buffer | null | undefined): OpReason {
  const account = scope.account(accountId)!;
  if (value == null) {
    if (!account.data.has(name)) return "nameNotFound";
    account.data.delete(name);
    return "success";
  }
  if (!account.data.has(name) && account.balance < minimumBalance(account, 1)) return "lowReserve";
  account.data.set(name, Buffer.from(value));
  return "success";
}
