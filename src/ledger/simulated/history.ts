// What Horizon's database would hold: closed ledgers, the transactions in them (successful and
// failed) and their operations, indexed by hash and by participating account. Everything is kept in
// paging-token order, so "records after cursor" is a binary search.
import type { Operation } from "@stellar/stellar-sdk";
import type { Envelope } from "./apply-transaction.ts";
import type { TransactionEvents } from "./asset-events.ts";
import { type AccountRef, accountRef } from "./assets.ts";
import { operationSource } from "./operations.ts";
import type { OpOutcome, TransactionResultInput } from "./result-xdr.ts";

export interface StoredLedger {
  sequence: number;
  hash: string;
  prevHash: string;
  closedAt: Date;
  /** Paging token: toid(sequence, 0, 0). */
  id: bigint;
  transactions: StoredTransaction[];
}

export interface StoredTransaction {
  /** Paging token: toid(ledger, application order, 0). */
  id: bigint;
  hash: string;
  envelope: Envelope;
  ledger: number;
  createdAt: Date;
  successful: boolean;
  feeCharged: bigint;
  /** The result as built (codes for Horizon's extras), and as the XDR clients decode. */
  result: TransactionResultInput;
  resultXdr: string;
  operations: StoredOperation[];
  /** CAP-67 events, as the transaction's meta carries them (the RPC API serves them). */
  events: TransactionEvents;
}

export interface StoredOperation {
  /** Paging token: toid(ledger, application order of the transaction, operation order). */
  id: bigint;
  transaction: StoredTransaction;
  op: Operation;
  outcome: OpOutcome;
  source: AccountRef;
  /** G accounts this operation touches (source and destination). */
  participants: string[];
}

/** The operation types Horizon's /payments endpoints list. */
const PAYMENT_TYPES = new Set(["createAccount", "payment", "pathPaymentStrictReceive", "pathPaymentStrictSend", "accountMerge"]);

export const isPayment = (operation: StoredOperation): boolean => PAYMENT_TYPES.has(operation.op.type);

function operationParticipants(op: Operation, source: AccountRef): string[] {
  const accounts = new Set([source.account]);
  if ("destination" in op && typeof op.destination === "string") accounts.add(accountRef(op.destination).account);
  // A claimable balance's claimants see it among their operations, as on Horizon.
  if (op.type === "createClaimableBalance") for (const claimant of op.claimants) accounts.add(claimant.destination);
  return [...accounts];
}

export class History {
  readonly ledgers: StoredLedger[] = [];
  readonly transactions: StoredTransaction[] = [];
  readonly operations: StoredOperation[] = [];
  private readonly byHash = new Map<string, StoredTransaction>();
  private readonly byOperationId = new Map<bigint, StoredOperation>();
  private readonly accountTransactions = new Map<string, StoredTransaction[]>();
  private readonly accountOperations = new Map<string, StoredOperation[]>();

  /** Builds the operation records of a transaction applied in a ledger; call addTransaction next. */
  static operationsOf(transaction: StoredTransaction, outcomes: OpOutcome[]): StoredOperation[] {
    return transaction.envelope.tx.operations.map((op, index) => {
      const source = operationSource(op, transaction.envelope.tx.source);
      return {
        id: transaction.id + BigInt(index + 1),
        transaction,
        op,
        outcome: outcomes[index]!,
        source,
        participants: operationParticipants(op, source),
      };
    });
  }

  addTransaction(transaction: StoredTransaction): void {
    this.transactions.push(transaction);
    this.byHash.set(transaction.hash, transaction);
    // A fee bump is also found by its inner transaction's hash, as on Horizon.
    if (transaction.envelope.innerHash) this.byHash.set(transaction.envelope.innerHash, transaction);

    const participants = new Set([transaction.envelope.source.account, transaction.envelope.feeSource.account]);
    for (const operation of transaction.operations) {
      this.operations.push(operation);
      this.byOperationId.set(operation.id, operation);
      for (const account of operation.participants) {
        participants.add(account);
        append(this.accountOperations, account, operation);
      }
    }
    for (const account of participants) append(this.accountTransactions, account, transaction);
  }

  addLedger(ledger: StoredLedger): void {
    this.ledgers.push(ledger);
  }

  get latestLedger(): StoredLedger {
    return this.ledgers[this.ledgers.length - 1]!;
  }

  ledger(sequence: number): StoredLedger | undefined {
    return this.ledgers[sequence - this.ledgers[0]!.sequence];
  }

  transaction(hash: string): StoredTransaction | undefined {
    return this.byHash.get(hash.toLowerCase());
  }

  operation(id: bigint): StoredOperation | undefined {
    return this.byOperationId.get(id);
  }

  transactionsOf(account: string): readonly StoredTransaction[] {
    return this.accountTransactions.get(account) ?? [];
  }

  operationsOf(account: string): readonly StoredOperation[] {
    return this.accountOperations.get(account) ?? [];
  }
}

function append<T>(index: Map<string, T[]>, key: string, item: T): void {
  const list = index.get(key);
  if (list) list.push(item);
  else index.set(key, [item]);
}
