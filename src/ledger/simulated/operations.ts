// The operations the simulated network executes, with stellar-core's result codes and check order.
// Two phases, as in stellar-core: checkOperation() is the static validity check done when a
// transaction is submitted (a malformed operation gets the transaction rejected without a fee), and
// applyOperation() runs when the ledger closes, against the state the ledger has by then.
import { Asset, type Operation } from "@stellar/stellar-sdk";
import { INT64_MAX, InvalidAmountError, parseAmount } from "./amounts.ts";
import { type AccountRef, accountRef, assetKey } from "./assets.ts";
import { convertStrictReceive, convertStrictSend } from "./order-book.ts";
import type { OpOutcome, OpReason, PathPaymentSuccess } from "./result-xdr.ts";
import { type LedgerOverlay, BASE_RESERVE, availableBalance, minimumBalance, newAccount, trustlineOf } from "./state.ts";

const MAX_PATH_LENGTH = 5;

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
    default:
      return { type: op.type, code: "opNotSupported" };
  }
}

export interface OperationContext {
  ledger: number;
  closeTime: Date;
  source: AccountRef;
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
function credit(scope: LedgerOverlay, accountId: string, asset: Asset, amount: bigint): OpReason | null {
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
