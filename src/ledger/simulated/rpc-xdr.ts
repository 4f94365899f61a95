// The XDR a Stellar RPC node answers with, built from the simulated ledger: transaction meta
// (TransactionMetaV4, protocol 23, carrying the CAP-67 events), ledger headers and close meta, and
// ledger entries (accounts and trustlines) for getLedgerEntries.
// What the simulator does not model is left empty and said so: ledger entry changes in the meta,
// the bucket list hash and skip list of headers, SCP information.
import { createHash } from "node:crypto";
import { Asset, Keypair, StrKey, xdr } from "@stellar/stellar-sdk";
import { assetKey } from "./assets.ts";
import type { StoredLedger, StoredTransaction } from "./history.ts";
import { BASE_FEE, BASE_RESERVE, type LedgerState, subentryCount } from "./state.ts";

export const PROTOCOL_VERSION = 23;

const ZERO_HASH = Buffer.alloc(32);
const TOTAL_COINS = 100_000_000_000n * 10_000_000n;
const MAX_TX_SET_SIZE = 1000;
/** stellar-core's TrustLineFlags.AUTHORIZED_FLAG: the simulator's trustlines are all authorized. */
const AUTHORIZED_FLAG = 1;

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest();

/** What getTransaction / getTransactions put in resultMetaXdr. */
export function transactionMeta(tx: StoredTransaction): xdr.TransactionMeta {
  // A contract call's meta has Soroban meta; the simulator's contract transfers return nothing.
  const soroban = tx.envelope.tx.operations.some((op) => op.type === "invokeHostFunction");
  return new xdr.TransactionMeta(
    4,
    new xdr.TransactionMetaV4({
      ext: new xdr.ExtensionPoint(0),
      txChangesBefore: [],
      operations: tx.events.operations.map((events) => new xdr.OperationMetaV2({ ext: new xdr.ExtensionPoint(0), changes: [], events })),
      txChangesAfter: [],
      sorobanMeta: soroban ? new xdr.SorobanTransactionMetaV2({ ext: new xdr.SorobanTransactionMetaExt(0), returnValue: xdr.ScVal.scvVoid() }) : null,
      // The fee is charged before any transaction of the ledger is applied.
      events: tx.events.fee.map((event) => new xdr.TransactionEvent({ stage: xdr.TransactionEventStage.transactionEventStageBeforeAllTxes(), event })),
      diagnosticEvents: [],
    }),
  );
}

const envelopeOf = (tx: StoredTransaction) => xdr.TransactionEnvelope.fromXDR(tx.envelope.envelopeXdr, "base64");
const resultPair = (tx: StoredTransaction) =>
  new xdr.TransactionResultPair({ transactionHash: Buffer.from(tx.hash, "hex"), result: xdr.TransactionResult.fromXDR(tx.resultXdr, "base64") });

/** Protocol 23's transaction set: a classic phase, and an empty (parallel) Soroban phase. */
function transactionSet(ledger: StoredLedger): xdr.GeneralizedTransactionSet {
  const classic =
    ledger.transactions.length === 0
      ? []
      : [xdr.TxSetComponent.txsetCompTxsMaybeDiscountedFee(new xdr.TxSetComponentTxsMaybeDiscountedFee({ baseFee: new xdr.Int64(BASE_FEE), txes: ledger.transactions.map(envelopeOf) }))];
  return new xdr.GeneralizedTransactionSet(
    1,
    new xdr.TransactionSetV1({
      previousLedgerHash: Buffer.from(ledger.prevHash, "hex"),
      phases: [new xdr.TransactionPhase(0, classic), new xdr.TransactionPhase(1, new xdr.ParallelTxsComponent({ baseFee: null, executionStages: [] }))],
    }),
  );
}

export function ledgerHeader(ledger: StoredLedger): xdr.LedgerHeader {
  const results = new xdr.TransactionResultSet({ results: ledger.transactions.map(resultPair) });
  return new xdr.LedgerHeader({
    ledgerVersion: PROTOCOL_VERSION,
    previousLedgerHash: Buffer.from(ledger.prevHash, "hex"),
    scpValue: new xdr.StellarValue({
      txSetHash: sha256(transactionSet(ledger).toXDR()),
      closeTime: xdr.Uint64.fromString(String(Math.floor(ledger.closedAt.getTime() / 1000))),
      upgrades: [],
      ext: xdr.StellarValueExt.stellarValueBasic(),
    }),
    txSetResultHash: sha256(results.toXDR()),
    bucketListHash: ZERO_HASH,
    ledgerSeq: ledger.sequence,
    totalCoins: new xdr.Int64(TOTAL_COINS),
    feePool: new xdr.Int64(0n),
    inflationSeq: 0,
    idPool: xdr.Uint64.fromString("0"),
    baseFee: Number(BASE_FEE),
    baseReserve: Number(BASE_RESERVE),
    maxTxSetSize: MAX_TX_SET_SIZE,
    skipList: [ZERO_HASH, ZERO_HASH, ZERO_HASH, ZERO_HASH],
    ext: new xdr.LedgerHeaderExt(0),
  });
}

/** LedgerCloseMetaV2, as a protocol 23 node streams it: header, transaction set and each transaction's meta. */
export function ledgerCloseMeta(ledger: StoredLedger): xdr.LedgerCloseMeta {
  return new xdr.LedgerCloseMeta(
    2,
    new xdr.LedgerCloseMetaV2({
      ext: new xdr.LedgerCloseMetaExt(0),
      ledgerHeader: new xdr.LedgerHeaderHistoryEntry({ hash: Buffer.from(ledger.hash, "hex"), header: ledgerHeader(ledger), ext: new xdr.LedgerHeaderHistoryEntryExt(0) }),
      txSet: transactionSet(ledger),
      txProcessing: ledger.transactions.map(
        (tx) =>
          new xdr.TransactionResultMetaV1({
            ext: new xdr.ExtensionPoint(0),
            result: resultPair(tx),
            feeProcessing: [],
            txApplyProcessing: transactionMeta(tx),
            postTxApplyFeeProcessing: [],
          }),
      ),
      upgradesProcessing: [],
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: xdr.Uint64.fromString("0"),
      evictedKeys: [],
    }),
  );
}

/** A ledger entry the simulator holds (account, trustline or data entry), or undefined as a node has none. */
export function ledgerEntry(state: LedgerState, key: xdr.LedgerKey): { data: xdr.LedgerEntryData; lastModifiedLedger: number } | undefined {
  switch (key.switch().name) {
    case "account": {
      const account = state.accounts.get(accountIdOf(key.account().accountId()));
      if (!account) return undefined;
      const entry = new xdr.AccountEntry({
        accountId: Keypair.fromPublicKey(account.id).xdrAccountId(),
        balance: new xdr.Int64(account.balance),
        seqNum: new xdr.Int64(account.sequence),
        numSubEntries: subentryCount(account),
        inflationDest: null,
        flags: 0,
        homeDomain: "",
        thresholds: Buffer.from([1, 0, 0, 0]),
        signers: [],
        ext: accountExt(account.numSponsoring),
      });
      return { data: xdr.LedgerEntryData.account(entry), lastModifiedLedger: account.lastModifiedLedger };
    }
    case "trustline": {
      const account = state.accounts.get(accountIdOf(key.trustLine().accountId()));
      const asset = trustlineAsset(key.trustLine().asset());
      const line = account && asset && account.trustlines.get(assetKey(asset));
      if (!account || !line) return undefined;
      const entry = new xdr.TrustLineEntry({
        accountId: Keypair.fromPublicKey(account.id).xdrAccountId(),
        asset: key.trustLine().asset(),
        balance: new xdr.Int64(line.balance),
        limit: new xdr.Int64(line.limit),
        flags: AUTHORIZED_FLAG,
        ext: new xdr.TrustLineEntryExt(0),
      });
      return { data: xdr.LedgerEntryData.trustline(entry), lastModifiedLedger: line.lastModifiedLedger };
    }
    case "data": {
      // SEP-29's config.memo_required lives here.
      const account = state.accounts.get(accountIdOf(key.data().accountId()));
      const name = key.data().dataName().toString();
      const value = account?.data.get(name);
      if (!account || !value) return undefined;
      const entry = new xdr.DataEntry({ accountId: Keypair.fromPublicKey(account.id).xdrAccountId(), dataName: name, dataValue: value, ext: new xdr.DataEntryExt(0) });
      return { data: xdr.LedgerEntryData.data(entry), lastModifiedLedger: account.lastModifiedLedger };
    }
    default:
      return undefined;
  }
}

/** An AccountId is a PublicKey union whose only arm is ed25519. */
const accountIdOf = (id: xdr.AccountId) => StrKey.encodeEd25519PublicKey(id.ed25519());

/** The sponsoring count lives in the account's v2 extension (behind v1's liabilities), as on Stellar. */
function accountExt(numSponsoring: number): xdr.AccountEntryExt {
  if (numSponsoring === 0) return new xdr.AccountEntryExt(0);
  const v2 = new xdr.AccountEntryExtensionV2({ numSponsored: 0, numSponsoring, signerSponsoringIDs: [], ext: new xdr.AccountEntryExtensionV2Ext(0) });
  const v1 = new xdr.AccountEntryExtensionV1({
    liabilities: new xdr.Liabilities({ buying: new xdr.Int64(0n), selling: new xdr.Int64(0n) }),
    ext: new xdr.AccountEntryExtensionV1Ext(2, v2),
  });
  return new xdr.AccountEntryExt(1, v1);
}

function trustlineAsset(asset: xdr.TrustLineAsset): Asset | undefined {
  const name = asset.switch().name;
  if (name !== "assetTypeCreditAlphanum4" && name !== "assetTypeCreditAlphanum12") return undefined;
  return Asset.fromOperation(xdr.Asset.fromXDR(asset.toXDR()));
}
