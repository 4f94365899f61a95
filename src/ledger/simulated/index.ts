// The simulated Stellar network's public surface.
export {
  MARKET_MAKER,
  SimulatedNetwork,
  type LedgerSummary,
  type OfferInfo,
  type OfferInput,
  type ResultCodes,
  type SimulatedNetworkOptions,
  type SubmitResult,
} from "./simulated-network.ts";
export { ContractTransferError, type ContractTransferInput } from "./contract-transfer.ts";
