// `npm run demo`: the whole service offline on the simulated network. Creates (or reuses) a demo
// organization with a funded settlement wallet, creates a payment, funds a payer, and prints what a
// new user needs: the checkout URL, the payer's secret, a sandbox API key.
import { Keypair, Networks } from "@stellar/stellar-sdk";
import type { Deps } from "../context.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { createApiKey } from "../modules/api-keys/api-keys.service.ts";
import { createOrganization, loadSettings, setSettlementWallet } from "../modules/organizations/organizations.service.ts";
import { createPayment } from "../modules/payments/payments.service.ts";
import { paymentJson } from "../modules/payments/payments.view.ts";

const DEMO_NAME = "Demo Store";

export async function setUpDemo(deps: Deps, ledger: Ledger) {
  const network = ledger.simulatedNetwork(Networks.TESTNET);
  if (!network) throw new Error("The demo runs on the simulated network: start it with LEDGER=simulated");

  const existing = await deps.db.organization.findFirst({ where: { name: DEMO_NAME }, orderBy: { createdAt: "asc" } });
  const organizationId = existing?.id ?? (await createOrganization(deps, { name: DEMO_NAME })).organization_id;
  // Keys are stored hashed: a fresh sandbox key is the only way to show one again.
  const apiKey = await createApiKey(deps, { organizationId, environment: "sandbox" });
  const scope = { organizationId, environment: "sandbox" as const, apiKeyId: "demo" };

  let settlementAddress = (await loadSettings(deps, scope)).settlementAddress;
  if (!settlementAddress) {
    settlementAddress = Keypair.random().publicKey();
    await setSettlementWallet(deps, { organizationId, environment: "sandbox", address: settlementAddress });
  }
  // The simulated ledger starts empty with every process: the wallet must exist to receive.
  if (network.balance(settlementAddress) === undefined) await network.fund(settlementAddress);

  const payment = await createPayment({ ...deps, scope }, { amount: 25n * 10_000_000n, description: "Demo order: 25 XLM" });
  const payer = Keypair.random();
  await network.fund(payer.publicKey());
  return { organizationId, apiKey, payer, payment: paymentJson(payment, deps.config.publicUrl) };
}

export function printDemo(demo: Awaited<ReturnType<typeof setUpDemo>>, horizonUrl: string) {
  const i = demo.payment.payment_instructions;
  console.log(`
Demo ready (simulated Stellar test network, offline).
  Checkout URL:       ${demo.payment.checkout_url}
  Payment:            ${demo.payment.id} (${demo.payment.amount} XLM)
  Pay to:             ${i.muxed_destination}
                      or ${i.destination} with memo id ${i.memo}
  Payer secret:       ${demo.payer.secret()}   (10,000 XLM; import it in a wallet or sign with the SDK)
  Payer address:      ${demo.payer.publicKey()}
  Horizon:            ${horizonUrl}
  Sandbox API key:    ${demo.apiKey}
`);
}
