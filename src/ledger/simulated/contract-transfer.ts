// A payment from a contract account (a smart or passkey wallet, C...) as the ledger records it: a
// transaction calling the asset contract's `transfer(from, to, amount)`, whose CAP-67 `transfer`
// event names the contract as `from`. The simulator has no Soroban: NO CONTRACT CODE RUNS. The
// network records the call (a transaction from its root account, which stands for the relayer that
// submits a smart wallet's call), credits the destination and emits the event; the contract's own
// balance and authorization are not modelled.
import { Account, Address, type Asset, Keypair, Operation, StrKey, TimeoutInfinite, TransactionBuilder, nativeToScVal, xdr } from "@stellar/stellar-sdk";
import { createHash } from "node:crypto";
import { parseAmount } from "./amounts.ts";
import { type ContractCall, type Envelope, parseEnvelope } from "./apply-transaction.ts";
import { type AssetContracts, type TransactionEvents, destinationMuxedId } from "./asset-events.ts";
import { type AccountRef, accountRef } from "./assets.ts";
import { signEd25519 } from "./ed25519.ts";
import { credit } from "./operations.ts";
import type { OpOutcome } from "./result-xdr.ts";

export interface ContractTransferInput {
  /** The paying contract, C... */
  from: string;
  /** The account paid, G... or M... (a muxed destination's id goes into the event's to_muxed_id). */
  to: string;
  asset: Asset;
  /** Decimal amount, e.g. "12.5". */
  amount: string;
}

export interface ContractTransfer {
  from: string;
  to: AccountRef;
  asset: Asset;
  amount: bigint;
}

export class ContractTransferError extends Error {}

export function parseContractTransfer(input: ContractTransferInput): ContractTransfer {
  if (!StrKey.isValidContract(input.from)) throw new ContractTransferError(`from must be a contract address (C...): ${input.from}`);
  if (!StrKey.isValidEd25519PublicKey(input.to) && !StrKey.isValidMed25519PublicKey(input.to)) {
    throw new ContractTransferError(`to must be an account (G... or M...): ${input.to}`);
  }
  const amount = parseAmount(input.amount);
  if (amount <= 0n) throw new ContractTransferError("amount must be positive");
  return { from: input.from, to: accountRef(input.to), asset: input.asset, amount };
}

/** The transaction that records the call: the root account invokes the asset contract's transfer. */
export function contractTransferEnvelope(transfer: ContractTransfer, root: Keypair, rootSequence: bigint, networkPassphrase: string): Envelope {
  const tx = new TransactionBuilder(new Account(root.publicKey(), rootSequence.toString()), { fee: "100", networkPassphrase })
    .addOperation(
      Operation.invokeContractFunction({
        contract: transfer.asset.contractId(networkPassphrase),
        function: "transfer",
        args: [
          Address.fromString(transfer.from).toScVal(),
          Address.fromString(transfer.to.muxed ?? transfer.to.account).toScVal(),
          nativeToScVal(transfer.amount, { type: "i128" }),
        ],
        auth: [],
      }),
    )
    .setTimeout(TimeoutInfinite)
    .build();
  tx.addSignature(root.publicKey(), signEd25519(root, tx.hash()).toString("base64"));
  return parseEnvelope(tx.toEnvelope().toXDR("base64"), networkPassphrase);
}

function transferEvent(transfer: ContractTransfer, contracts: AssetContracts): xdr.ContractEvent {
  return contracts.movement(transfer.asset, { contract: transfer.from }, { account: transfer.to.account }, transfer.amount, destinationMuxedId(transfer.to, undefined));
}

/** What the call does to the ledger: the destination is credited (it traps, as the contract would, without a trustline). */
export function contractTransferCall(transfer: ContractTransfer, contracts: AssetContracts): ContractCall {
  return (scope): OpOutcome => {
    if (!scope.exists(transfer.to.account) || credit(scope, transfer.to.account, transfer.asset, transfer.amount)) {
      return { type: "invokeHostFunction", code: "trapped" };
    }
    const preimage = new xdr.InvokeHostFunctionSuccessPreImage({ returnValue: xdr.ScVal.scvVoid(), events: [transferEvent(transfer, contracts)] });
    return { type: "invokeHostFunction", code: "success", contractCallHash: createHash("sha256").update(preimage.toXDR()).digest() };
  };
}

export function contractTransferEvents(
  transfer: ContractTransfer,
  envelope: Envelope,
  applied: { successful: boolean; feeCharged: bigint },
  contracts: AssetContracts,
): TransactionEvents {
  return {
    fee: [contracts.fee(envelope.feeSource.account, applied.feeCharged)],
    operations: applied.successful ? [[transferEvent(transfer, contracts)]] : [],
  };
}
