// CAP-67's asset events, as Stellar RPC's getEvents (and getTransactions' contract events) give them,
// read into the payment records the verifier takes. Since protocol 23 every movement of a Stellar
// asset, classic payments included, is an event of the asset's contract (its Stellar Asset Contract,
// SAC): `transfer` [from, to, asset], `mint` [to, asset] when the issuer pays (`mint` [admin, to,
// asset] before CAP-67) and `burn` [from, asset] when the issuer is paid. The data is the amount
// (i128), or a map {amount, to_muxed_id} when the destination was muxed or the transaction had a
// memo: a u64 for an M... address's id or an id memo, a string for a text memo, bytes for a hash memo.
import { Address, FeeBumpTransaction, type Memo, Asset as SdkAsset, StrKey, TransactionBuilder, scValToBigInt, xdr } from "@stellar/stellar-sdk";
import { type Asset, XLM } from "../shared/assets.ts";
import type { LedgerPaymentRecord } from "./ledger-source.ts";

/** An asset event of a SAC, before it is matched against the watched wallets. */
export interface AssetEvent {
  /** RPC's event id: "<TOID of the operation, 19 digits>-<event index, 10 digits>", unique and ordered */
  id: string;
  ledger: number;
  ledgerClosedAt: string;
  txHash: string;
  /** the contract that emitted it (C...) */
  contractId: string;
  topics: xdr.ScVal[];
  /** decoded only for the events of watched wallets */
  value: () => xdr.ScVal;
}

const ASSET_EVENT_NAMES = new Set(["transfer", "mint", "burn"]);

/** The topic filters of getEvents that select asset events (any contract: the contract is checked per event). */
export const ASSET_EVENT_TOPICS: string[][] = [
  ["transfer", "*", "*", "*"],
  ["mint", "*", "*"],
  ["mint", "*", "*", "*"],
  ["burn", "*", "*"],
].map(([name, ...rest]) => [xdr.ScVal.scvSymbol(name!).toXDR("base64"), ...rest]);

/** SEP-11's name of an asset ("native", "CODE:ISSUER") -> the asset; null for anything else. */
function assetOfName(name: string): Asset | null {
  if (name === "native") return XLM;
  const [code, issuer, extra] = name.split(":");
  if (extra !== undefined || !code || !issuer || !/^[A-Za-z0-9]{1,12}$/.test(code) || !StrKey.isValidEd25519PublicKey(issuer)) return null;
  return { code, issuer };
}

/**
 * Whether `contractId` is the SAC of the asset the event names: anyone can deploy a contract that
 * emits a `transfer` naming USDC, and only the real asset's contract moves the real asset.
 */
export class AssetContracts {
  private readonly contracts = new Map<string, string>();
  constructor(private readonly networkPassphrase: string) {}

  contractOf(asset: Asset): string {
    const name = asset.issuer ? `${asset.code}:${asset.issuer}` : "native";
    let contract = this.contracts.get(name);
    if (!contract) {
      const sdkAsset = asset.issuer ? new SdkAsset(asset.code, asset.issuer) : SdkAsset.native();
      this.contracts.set(name, (contract = sdkAsset.contractId(this.networkPassphrase)));
    }
    return contract;
  }

  /** The asset an event of `contractId` naming `name` moves, or null when the contract is not that asset's. */
  assetOf(contractId: string, name: string): Asset | null {
    const asset = assetOfName(name);
    return asset && this.contractOf(asset) === contractId ? asset : null;
  }
}

const addressOf = (value: xdr.ScVal | undefined): string | null => {
  if (value?.switch().name !== "scvAddress") return null;
  try {
    // Accounts and contracts named directly: Address.fromScVal encodes the key, then decodes it again to check it.
    const address = value.address();
    switch (address.switch().name) {
      case "scAddressTypeAccount":
        return StrKey.encodeEd25519PublicKey(address.accountId().ed25519());
      case "scAddressTypeContract":
        return StrKey.encodeContract(address.contractId() as unknown as Buffer);
      default:
        return Address.fromScVal(value).toString();
    }
  } catch {
    return null; // an address kind this SDK cannot name: no payment
  }
};

const stringOf = (value: xdr.ScVal | undefined): string | null => {
  const kind = value?.switch().name;
  if (kind === "scvString") return value!.str().toString();
  if (kind === "scvSymbol") return value!.sym().toString();
  return null;
};

/** A movement of an asset: who paid whom, how much, and the correlation the payer attached. */
export interface AssetMovement {
  from: string;
  to: string;
  asset: Asset;
  /** the value, read when asked (it is decoded for watched wallets only) */
  details(): { amount: bigint; toMuxedId: string | null; memoType: "text" | "hash" | null; memo: string | null };
}

/** The movement an asset event records, or null for an event that is none (another contract's, a malformed one). */
export function movementOf(event: AssetEvent, contracts: AssetContracts): AssetMovement | null {
  const name = event.topics[0]?.switch().name === "scvSymbol" ? event.topics[0].sym().toString() : null;
  if (!name || !ASSET_EVENT_NAMES.has(name)) return null;
  const topics = event.topics;
  const assetName = stringOf(topics.at(-1));
  if (!assetName) return null;
  const asset = contracts.assetOf(event.contractId, assetName);
  if (!asset) return null;
  let from: string | null;
  let to: string | null;
  if (name === "transfer" && topics.length === 4) [from, to] = [addressOf(topics[1]), addressOf(topics[2])];
  // The issuer paying mints, the issuer paid burns: the issuer is the other side.
  else if (name === "mint" && (topics.length === 3 || topics.length === 4)) [from, to] = [asset.issuer, addressOf(topics[topics.length - 2])];
  else if (name === "burn" && topics.length === 3) [from, to] = [addressOf(topics[1]), asset.issuer];
  else return null;
  if (!from || !to) return null;
  return { from, to, asset, details: () => detailsOf(event.value()) };
}

/** The amount and to_muxed_id of an event's data; throws on data that is neither an i128 nor such a map. */
function detailsOf(value: xdr.ScVal): ReturnType<AssetMovement["details"]> {
  if (value.switch().name === "scvI128") return { amount: scValToBigInt(value), toMuxedId: null, memoType: null, memo: null };
  if (value.switch().name !== "scvMap") throw new Error(`asset event data is ${value.switch().name}, not an amount`);
  const fields = new Map((value.map() ?? []).map((entry) => [stringOf(entry.key()), entry.val()]));
  const amount = fields.get("amount");
  if (amount?.switch().name !== "scvI128") throw new Error("asset event data has no i128 amount");
  const muxed = fields.get("to_muxed_id");
  const base = { amount: scValToBigInt(amount), toMuxedId: null, memoType: null, memo: null };
  switch (muxed?.switch().name) {
    case undefined:
    case "scvVoid":
      return base;
    case "scvU64":
      return { ...base, toMuxedId: muxed!.u64().toString() };
    case "scvString":
      return { ...base, memoType: "text", memo: muxed!.str().toString() };
    case "scvBytes":
      // As Horizon shows a hash memo: base64 (the refunds' recognition reads it so).
      return { ...base, memoType: "hash", memo: Buffer.from(muxed!.bytes()).toString("base64") };
    default:
      throw new Error(`asset event to_muxed_id is ${muxed!.switch().name}`);
  }
}

/** The payment record of a movement to or from a watched wallet. */
export function recordOf(event: AssetEvent, movement: AssetMovement): LedgerPaymentRecord {
  const { amount, toMuxedId, memoType, memo } = movement.details();
  if (amount <= 0n) throw new Error(`asset event ${event.id} moves ${amount} stroops`);
  return {
    // One operation may move several assets (a path payment's hops): the event is the unit that counts once.
    operationId: event.id,
    pagingToken: event.id,
    txHash: event.txHash,
    // getEvents and getTransactions' events are of successful transactions only.
    transactionSuccessful: true,
    // The event does not say which operation moved the money; what arrived is what counts.
    kind: "payment",
    from: movement.from,
    to: movement.to,
    toMuxedId,
    asset: movement.asset,
    amount,
    sourceAsset: null,
    memoType: toMuxedId !== null ? "id" : memoType,
    memo: toMuxedId ?? memo,
    ledgerCreatedAt: new Date(event.ledgerClosedAt),
  };
}

// Event ids and the service's cursors: "<TOID>-<index>", TOID = ledger << 32 | tx << 12 | operation.
const EVENT_ID = /^(\d{19})-(\d{10})$/;

export const isEventId = (cursor: string) => EVENT_ID.test(cursor);

/** The ledger an event id (or cursor) lies in. */
export function ledgerOfEventId(id: string): number {
  const match = EVENT_ID.exec(id);
  return match ? Number(BigInt(match[1]!) >> 32n) : 0;
}

/** The cursor before every event of `ledger`: getEvents resumes after it with the ledger's first event. */
export const cursorBeforeLedger = (ledger: number) => `${(BigInt(ledger) << 32n).toString().padStart(19, "0")}-${"0".repeat(10)}`;

/** The event id of the `index`-th event of an operation (catch-up from getTransactions makes them so, as RPC does). */
export function eventIdOf(ledger: number, transactionOrder: number, operationIndex: number, index: number): string {
  const toid = (BigInt(ledger) << 32n) | (BigInt(transactionOrder) << 12n) | BigInt(operationIndex);
  return `${toid.toString().padStart(19, "0")}-${String(index).padStart(10, "0")}`;
}

// Switching a network between Horizon and RPC: both count in TOIDs, but Horizon numbers a
// transaction's operations from 1 (0 is the transaction) and RPC's event ids from 0. A cursor
// converts exactly, so that nothing paid is skipped and nothing counted is counted again (the same
// operation has different ids on the two APIs: the verifier could not tell it was seen).

/** A Horizon paging token -> the RPC cursor right after that operation's events; null for anything else ("now", "0"). */
export function eventCursorOfPagingToken(token: string): string | null {
  if (!/^\d{1,19}$/.test(token) || BigInt(token) === 0n) return null;
  // Event index 4294967294: getEvents resumes at index + 1, and stellar-rpc's uint32 index wraps past 4294967295.
  return `${(BigInt(token) - 1n).toString().padStart(19, "0")}-4294967294`;
}

/** An RPC cursor -> the Horizon paging token after its operation; null when it is not an event id. */
export function pagingTokenOfEventCursor(cursor: string): string | null {
  const match = EVENT_ID.exec(cursor);
  return match ? (BigInt(match[1]!) + 1n).toString() : null;
}

/** A transaction's memo as Horizon shows it (hash and return in base64), from its envelope. */
export function memoOf(envelope: xdr.TransactionEnvelope, networkPassphrase: string): { memoType: string; memo: string | null } {
  let tx = TransactionBuilder.fromXDR(envelope, networkPassphrase);
  if (tx instanceof FeeBumpTransaction) tx = tx.innerTransaction;
  const memo: Memo = tx.memo;
  switch (memo.type) {
    case "none":
      return { memoType: "none", memo: null };
    case "text":
      return { memoType: "text", memo: Buffer.isBuffer(memo.value) ? memo.value.toString("utf8") : String(memo.value) };
    case "id":
      return { memoType: "id", memo: String(memo.value) };
    default:
      // hash and return, base64 as Horizon shows them
      return { memoType: memo.type, memo: Buffer.from(memo.value as Buffer).toString("base64") };
  }
}

/** Whether an event's address is a claimable balance's (B...): CAP-67's transfer into one names the balance. */
export const isClaimableBalanceAddress = (address: string) => address.startsWith("B");

/** The operation an event id (or a catch-up's) lies in: its TOID's low 12 bits. */
export const operationIndexOfEventId = (id: string): number => Number(BigInt(id.slice(0, 19)) & 0xfffn);

/**
 * The claimant of a claimable balance created by operation `operationIndex` of a transaction (its
 * envelope), when it has exactly one, as a refund's has; null for anything else.
 */
export function claimantOf(envelopeXdr: string, networkPassphrase: string, operationIndex: number): string | null {
  let tx = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
  if (tx instanceof FeeBumpTransaction) tx = tx.innerTransaction;
  const op = tx.operations[operationIndex];
  return op?.type === "createClaimableBalance" && op.claimants.length === 1 ? op.claimants[0]!.destination : null;
}
