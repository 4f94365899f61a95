import { Networks } from "@stellar/stellar-sdk";
import type { Environment } from "../context.ts";

/** Sandbox keys use the Stellar test network, live keys the public network. */
export const networkPassphraseFor = (environment: Environment) =>
  environment === "sandbox" ? Networks.TESTNET : Networks.PUBLIC;

/** The network a passphrase names, as pages say it: the public network, the test network, or another (a private one). */
export function networkNameOf(networkPassphrase: string): "public" | "testnet" | "other" {
  if (networkPassphrase === Networks.PUBLIC) return "public";
  if (networkPassphrase === Networks.TESTNET) return "testnet";
  return "other";
}

/** A public explorer's page for a transaction on the public or test network (stellar.expert); null for any other network. */
export function explorerTxUrl(networkPassphrase: string, hash: string): string | null {
  const name = networkNameOf(networkPassphrase);
  return name === "other" ? null : `https://stellar.expert/explorer/${name}/tx/${hash}`;
}
