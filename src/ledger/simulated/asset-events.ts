// CAP-67 (protocol 23) unified asset events: every movement of a Stellar asset, classic operations
// included, is an event of the asset's Stellar Asset Contract, whose address is derived from the
// asset whether or not the contract is deployed. Built here as the XDR stellar-core puts in
// TransactionMetaV4, so that the RPC API can answer getEvents / getTransaction as a real node does.
//   transfer: topics ["transfer", from, to, sep0011_asset], data amount (i128) or {amount, to_muxed_id}
//   mint (the issuer sends): ["mint", to, sep0011_asset]; burn (the issuer receives): ["burn", from, sep0011_asset]
//   fee (transaction level): ["fee", fee source] on the native asset's contract, data the fee charged
import { Address, Asset, type Operation, StrKey, nativeToScVal, xdr } from "@stellar/stellar-sdk";
import { parseAmount } from "./amounts.ts";
import type { Envelope } from "./apply-transaction.ts";
import { type AccountRef, accountRef, assetKey } from "./assets.ts";
import type { OpOutcome } from "./result-xdr.ts";

/** What a transaction's meta carries: its fee event, and each operation's asset events. */
export interface TransactionEvents {
  fee: xdr.ContractEvent[];
  /** One list per operation; empty lists for a failed transaction (its operations changed nothing). */
  operations: xdr.ContractEvent[][];
}

/** Who holds a balance: an account (G...), a contract (C...), or a claimable balance (hex id). */
export type Holder = { account: string } | { contract: string } | { claimableBalance: string };

interface AssetContract {
  id: Buffer;
  /** C... strkey, as RPC answers name it */
  address: string;
  sep11: xdr.ScVal;
}

/**
 * The Stellar Asset Contract of each asset on one network (its address depends on the passphrase).
 * Its events share one ScVal per name, asset and account or contract, so that the RPC API encodes
 * each once (rpc-routes.ts keeps the encodings by ScVal), not once per event.
 */
export class AssetContracts {
  private readonly cache = new Map<string, AssetContract>();
  /** G... or C... -> its address ScVal (as many as the accounts and contracts paid: the ledger holds as many) */
  private readonly addresses = new Map<string, xdr.ScVal>();

  constructor(private readonly networkPassphrase: string) {}

  of(asset: Asset): AssetContract {
    const key = assetKey(asset);
    let contract = this.cache.get(key);
    if (!contract) {
      const address = asset.contractId(this.networkPassphrase);
      contract = { id: StrKey.decodeContract(address), address, sep11: xdr.ScVal.scvString(asset.isNative() ? "native" : key) };
      this.cache.set(key, contract);
    }
    return contract;
  }

  /** A transfer, or the mint / burn it is when one side (not both) is the asset's issuer. */
  movement(asset: Asset, from: Holder, to: Holder, amount: bigint, toMuxedId?: xdr.ScVal): xdr.ContractEvent {
    const contract = this.of(asset);
    const issuer = asset.isNative() ? undefined : asset.getIssuer();
    const fromIssuer = "account" in from && from.account === issuer;
    const toIssuer = "account" in to && to.account === issuer;
    if (fromIssuer && !toIssuer) return contractEvent(contract.id, [symbol("mint"), this.address(to), contract.sep11], amountData(amount, toMuxedId));
    if (toIssuer && !fromIssuer) return contractEvent(contract.id, [symbol("burn"), this.address(from), contract.sep11], i128(amount));
    return contractEvent(contract.id, [symbol("transfer"), this.address(from), this.address(to), contract.sep11], amountData(amount, toMuxedId));
  }

  fee(feeSource: string, amount: bigint): xdr.ContractEvent {
    return contractEvent(this.of(Asset.native()).id, [symbol("fee"), this.address({ account: feeSource })], i128(amount));
  }

  private address(holder: Holder): xdr.ScVal {
    // A claimable balance is paid once or twice: not worth keeping.
    if ("claimableBalance" in holder) {
      return xdr.ScVal.scvAddress(xdr.ScAddress.scAddressTypeClaimableBalance(xdr.ClaimableBalanceId.fromXDR(holder.claimableBalance, "hex")));
    }
    const strkey = "account" in holder ? holder.account : holder.contract;
    let value = this.addresses.get(strkey);
    if (!value) this.addresses.set(strkey, (value = xdr.ScVal.scvAddress(Address.fromString(strkey).toScAddress())));
    return value;
  }
}

const SYMBOLS = new Map(["transfer", "mint", "burn", "fee", "amount", "to_muxed_id"].map((name) => [name, xdr.ScVal.scvSymbol(name)]));
const symbol = (name: string) => SYMBOLS.get(name)!;
const i128 = (amount: bigint) => nativeToScVal(amount, { type: "i128" });

/** The amount alone, or the map CAP-67 uses when the destination carries a muxed id or a memo. */
function amountData(amount: bigint, toMuxedId: xdr.ScVal | undefined): xdr.ScVal {
  if (!toMuxedId) return i128(amount);
  return xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: symbol("amount"), val: i128(amount) }),
    new xdr.ScMapEntry({ key: symbol("to_muxed_id"), val: toMuxedId }),
  ]);
}

export function contractEvent(contractId: Buffer, topics: xdr.ScVal[], data: xdr.ScVal): xdr.ContractEvent {
  return new xdr.ContractEvent({
    ext: new xdr.ExtensionPoint(0),
    contractId: contractId as unknown as xdr.ContractId,
    type: xdr.ContractEventType.contract(),
    body: new xdr.ContractEventBody(0, new xdr.ContractEventV0({ topics, data })),
  });
}

/** The transaction's memo as CAP-67 maps it: id as u64, text as string, hash and return as bytes. */
function memoValue(envelope: Envelope): xdr.ScVal | undefined {
  const memo = envelope.tx.memo.toXDRObject();
  switch (memo.switch().name) {
    case "memoId":
      return xdr.ScVal.scvU64(memo.id());
    case "memoText":
      return xdr.ScVal.scvString(memo.text());
    case "memoHash":
      return xdr.ScVal.scvBytes(memo.hash());
    case "memoReturn":
      return xdr.ScVal.scvBytes(memo.retHash());
    default:
      return undefined;
  }
}

/** to_muxed_id of a classic destination: an M... address's id, or else the transaction's memo. */
export function destinationMuxedId(destination: AccountRef, memo: xdr.ScVal | undefined): xdr.ScVal | undefined {
  if (destination.muxedId !== undefined) return xdr.ScVal.scvU64(xdr.Uint64.fromString(destination.muxedId));
  return memo;
}

/** The events of one successful classic operation, in the order stellar-core emits them. */
function operationEvents(op: Operation, outcome: OpOutcome, source: AccountRef, memo: xdr.ScVal | undefined, contracts: AssetContracts): xdr.ContractEvent[] {
  const from: Holder = { account: source.account };
  switch (op.type) {
    case "createAccount":
      return [contracts.movement(Asset.native(), from, { account: op.destination }, parseAmount(op.startingBalance), memo)];
    case "payment": {
      const destination = accountRef(op.destination);
      return [contracts.movement(op.asset, from, { account: destination.account }, parseAmount(op.amount), destinationMuxedId(destination, memo))];
    }
    case "pathPaymentStrictReceive":
    case "pathPaymentStrictSend": {
      const paid = outcome.pathPayment!;
      const destination = accountRef(op.destination);
      // Each offer crossed is a trade between the source and the offer's owner: what the owner
      // sold goes to the source, what it bought comes from the source. Then the source pays the
      // destination what it receives (the whole path payment reads as source -> destination).
      const trades = paid.fills.flatMap((fill) => [
        contracts.movement(fill.offer.selling, { account: fill.offer.seller }, from, fill.amountSold),
        contracts.movement(fill.offer.buying, from, { account: fill.offer.seller }, fill.amountBought),
      ]);
      return [...trades, contracts.movement(paid.asset, from, { account: destination.account }, paid.amount, destinationMuxedId(destination, memo))];
    }
    case "createClaimableBalance":
      return [contracts.movement(op.asset, from, { claimableBalance: outcome.balanceId! }, parseAmount(op.amount))];
    case "accountMerge": {
      const destination = accountRef(op.destination);
      return [contracts.movement(Asset.native(), from, { account: destination.account }, outcome.merged!, destinationMuxedId(destination, memo))];
    }
    case "claimClaimableBalance": {
      const claimed = outcome.claimed!;
      return [contracts.movement(claimed.asset, { claimableBalance: op.balanceId.toLowerCase() }, from, claimed.amount, memo)];
    }
    default:
      return [];
  }
}

/** The events of a transaction applied in a ledger. */
export function transactionEvents(envelope: Envelope, applied: { successful: boolean; feeCharged: bigint; outcomes: OpOutcome[] }, contracts: AssetContracts): TransactionEvents {
  const memo = memoValue(envelope);
  return {
    fee: [contracts.fee(envelope.feeSource.account, applied.feeCharged)],
    operations: applied.successful
      ? envelope.tx.operations.map((op, index) => operationEvents(op, applied.outcomes[index]!, accountRef(op.source ?? envelope.tx.source), memo, contracts))
      : [],
  };
}
