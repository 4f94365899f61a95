// Everything the service needs from the ledger, built once per app: a LedgerSource per network,
// the built-in simulated networks when LEDGER=simulated, and the workers (network streamer, expiry
// sweeper, ledger clock). Nothing runs until start().
//
// Networks: sandbox is the Stellar test network, production the public network. With
// LEDGER=simulated the process never reaches a real network: sandbox uses a simulated network with
// the test network's passphrase at /_sim (Horizon /_sim/horizon, friendbot /_sim/friendbot), and
// production one with the public passphrase at /_sim/public (/_sim/public/horizon), so live keys can
// be tried offline too and no simulated payment can ever be mistaken for one on the real network.
// Each network is reached by Horizon or by Stellar RPC (config.ledgerApis: STELLAR_RPC_URL,
// STELLAR_RPC_TESTNET_URL; LEDGER_API=rpc for the simulated networks, at /_sim/rpc and /_sim/public/rpc).
import { Networks } from "@stellar/stellar-sdk";
import type { Deps } from "../context.ts";
import { forgetLedgers } from "../modules/ledger-payments/ledger-payments.store.ts";
import { createExpirySweeper } from "../modules/payments/expiry-sweeper.ts";
import type { Logger } from "../shared/logger.ts";
import { createNetworkLocks } from "./network-locks.ts";
import { HorizonSource } from "./horizon-source.ts";
import { RpcSource } from "./rpc-source.ts";
import type { LedgerNetworks, LedgerSource } from "./ledger-source.ts";
import { SimulatedNetwork } from "./simulated/index.ts";
import { createLedgerStreamer } from "./streamer.ts";
import { type OutageReport, createOutageReport } from "./outage-report.ts";
import { reportingUnreachable } from "./unreachable-network.ts";

const SIMULATED_PATH = "/_sim";
const SIMULATED_PUBLIC_PATH = `${SIMULATED_PATH}/public`;
const TESTNET_FRIENDBOT = "https://friendbot.stellar.org";


/** How a network is reached, as /ready shows it (no URL: an RPC provider's often holds its API key). */
export interface NetworkReach {
  network: "sandbox" | "production";
  api: LedgerSource["api"];
  /** quotes in assets that need a path: false on Stellar RPC without a Horizon URL (settlement asset only) */
  path_payments: boolean;
  /** why this process stopped watching it (a node of another network, no classic events) */
  stopped?: string;
}

export interface Ledger extends LedgerNetworks {
  /** Each network's API, for /ready and the start line. */
  describeNetworks(): NetworkReach[];
  /** Answers /_sim/... in simulated mode; null when the path is not the simulated network's. */
  handleSimulated(request: Request, path: string): Promise<Response> | null;
  streamer: ReturnType<typeof createLedgerStreamer>;
  sweeper: ReturnType<typeof createExpirySweeper>;
  /** `url`: where this process listens, so it reaches its own simulated network. */
  start(options?: { url?: string }): Promise<void>;
  stop(): Promise<void>;
}

/** `onEventsCommitted`: the streamer and the sweeper committed outbox events (the webhook worker wakes). */
export function createLedger(deps: Deps & { logger: Logger }, onEventsCommitted?: () => void): Ledger {
  const { config } = deps;
  const simulated =
    config.ledger === "simulated"
      ? new Map([
          [Networks.TESTNET, new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: SIMULATED_PATH, ledgerCloseMs: config.simLedgerCloseMs, clock: deps.clock })],
          [Networks.PUBLIC, new SimulatedNetwork({ networkPassphrase: Networks.PUBLIC, basePath: SIMULATED_PUBLIC_PATH, ledgerCloseMs: config.simLedgerCloseMs, clock: deps.clock })],
        ])
      : null;
  let baseUrl = config.publicUrl;
  const sources = new Map<string, LedgerSource>();
  /** network -> its outage report: its source's callers and its stream say an outage once between them */
  const outages = new Map<string, OutageReport>();

  function sourceFor(networkPassphrase: string): LedgerSource {
    let source = sources.get(networkPassphrase);
    if (source) return source;
    const testnet = networkPassphrase === Networks.TESTNET;
    if (!testnet && networkPassphrase !== Networks.PUBLIC) throw new Error(`Unknown network: ${networkPassphrase}`);
    const reach = config.ledgerApis[testnet ? "testnet" : "public"];
    let made: LedgerSource;
    if (simulated) {
      const mount = `${baseUrl}${testnet ? SIMULATED_PATH : SIMULATED_PUBLIC_PATH}`;
      made =
        reach.api === "rpc"
          ? new RpcSource({ url: `${mount}/rpc`, networkPassphrase, friendbotUrl: `${mount}/friendbot`, logger: deps.logger, pollMs: config.rpcPollMs, requestTimeoutMs: config.rpcTimeoutMs })
          : new HorizonSource({ url: `${mount}/horizon`, networkPassphrase, friendbotUrl: `${mount}/friendbot` });
    } else if (reach.api === "rpc") {
      // Friendbot: the node's getNetwork names it on test networks.
      made = new RpcSource({ url: reach.rpcUrl, horizonUrl: reach.horizonUrl, networkPassphrase, logger: deps.logger, pollMs: config.rpcPollMs, requestTimeoutMs: config.rpcTimeoutMs });
    } else {
      made = testnet
        ? new HorizonSource({ url: config.horizonUrls.testnet, networkPassphrase, friendbotUrl: TESTNET_FRIENDBOT })
        : new HorizonSource({ url: config.horizonUrls.public, networkPassphrase });
    }
    const outage = createOutageReport(deps, made.url, undefined, made.api);
    outages.set(networkPassphrase, outage);
    source = reportingUnreachable(made, outage);
    sources.set(networkPassphrase, source);
    return source;
  }

  const locks = createNetworkLocks(config, deps.logger);
  const outageReportFor = (networkPassphrase: string) => (sourceFor(networkPassphrase), outages.get(networkPassphrase)!);
  const streamer = createLedgerStreamer(deps, { sourceFor, locks, onEventsCommitted, outageReportFor });
  const sweeper = createExpirySweeper(deps, { onEventsCommitted });

  return {
    sourceFor,
    describeNetworks: () =>
      ([["sandbox", Networks.TESTNET], ["production", Networks.PUBLIC]] as const).map(([network, passphrase]) => {
        const source = sourceFor(passphrase);
        const stopped = streamer.stoppedNetworks().get(passphrase);
        return { network, api: source.api, path_payments: source.findsPaths, ...(stopped && { stopped }) };
      }),
    simulatedNetwork: (networkPassphrase) => simulated?.get(networkPassphrase as Networks) ?? null,
    handleSimulated(request, path) {
      if (!simulated || (path !== SIMULATED_PATH && !path.startsWith(`${SIMULATED_PATH}/`))) return null;
      const isPublic = path === SIMULATED_PUBLIC_PATH || path.startsWith(`${SIMULATED_PUBLIC_PATH}/`);
      return simulated.get(isPublic ? Networks.PUBLIC : Networks.TESTNET)!.fetch(request);
    },
    streamer,
    sweeper,
    async start(startOptions = {}) {
      if (startOptions.url && startOptions.url !== baseUrl) {
        baseUrl = startOptions.url.replace(/\/+$/, "");
        sources.clear();
      }
      // A simulated ledger lives only as long as this process: what an earlier one left is dropped.
      if (simulated) await forgetLedgers(deps.db, [...simulated.keys()]);
      for (const network of simulated?.values() ?? []) network.start();
      streamer.start();
      sweeper.start();
    },
    async stop() {
      await streamer.stop();
      await sweeper.stop();
      for (const network of simulated?.values() ?? []) await network.stop();
      await locks.close();
    },
  };
}
