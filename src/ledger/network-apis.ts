// Which API reaches each network, in words for the start line, without loading the ledger code
// (main.ts prints it before the service is imported).
import type { Config } from "../config.ts";

/**
 * The node's URL as log lines and errors show it: RPC providers put the API key in the path
 * (…/v1/<key>) or the query, so the query goes and any long path segment is masked.
 */
export function displayedUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname
    .split("/")
    .map((segment) => (segment.length >= 16 ? "…" : segment))
    .join("/");
  return `${parsed.origin}${path === "/" ? "" : path}`;
}

/** The start line's account of each network's API (a provider's key in its URL masked). */
export function ledgerApiSummary(config: Config): string {
  const where = displayedUrl;
  return (["testnet", "public"] as const)
    .map((network) => {
      const name = network === "testnet" ? "sandbox" : "production";
      const reach = config.ledgerApis[network];
      if (config.ledger === "simulated") return `${name}: simulated, ${reach.api === "rpc" ? "Stellar RPC" : "Horizon"}`;
      if (reach.api === "horizon") return `${name}: Horizon ${where(config.horizonUrls[network])}`;
      return `${name}: Stellar RPC ${where(reach.rpcUrl)}${reach.horizonUrl ? `, path quotes from Horizon ${where(reach.horizonUrl)}` : ", no path payments (no Horizon URL)"}`;
    })
    .join("; ");
}
