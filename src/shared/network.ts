import { Networks } from "@stellar/stellar-sdk";
import type { Environment } from "../context.ts";

/** Sandbox keys use the Stellar test network, live keys the public network. */
export const networkPassphraseFor = (environment: Environment) =>
  environment === "sandbox" ? Networks.TESTNET : Networks.PUBLIC;
