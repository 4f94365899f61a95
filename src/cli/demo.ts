// `npm run demo`: the whole service offline on the simulated network. Creates (or reuses) a demo
// organization with a funded settlement wallet and an owner, creates a payment, funds a payer, and
// prints what a new user needs: the dashboard and how to sign in to it, the organization id, the API
// keys made, the checkout URL, the payer's secret.
// Its database is its own (data/demo.db unless DATABASE_URL is set: config.ts).
import { Keypair, Networks } from "@stellar/stellar-sdk";
import type { Deps } from "../context.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { createApiKey } from "../modules/api-keys/api-keys.service.ts";
import { createOrganization, loadSettings, setSettlementWallet } from "../modules/organizations/organizations.service.ts";
import { oldestOrganizationNamed } from "../modules/organizations/organizations.store.ts";
import { createPayment } from "../modules/payments/payments.service.ts";
import { hashPassword } from "../modules/users/passwords.ts";
import { createUser } from "../modules/users/users.service.ts";
import { setPasswordHashStatement, userByEmail } from "../modules/users/users.store.ts";
import { typedSql } from "../db/client.ts";
import { randomBase62 } from "../shared/ids.ts";
import { paymentJson } from "../modules/payments/payments.view.ts";

const DEMO_NAME = "Demo Store";
const DEMO_OWNER = "owner@demo.test";

/**
 * The demo organization's owner, with a password new this run: like the keys, a password is stored
 * hashed, so a fresh one is the only way to print one again.
 */
async function demoOwner(deps: Deps, organizationId: string): Promise<{ email: string; password: string }> {
  const password = randomBase62(16);
  const existing = await userByEmail(deps.db, DEMO_OWNER);
  if (!existing) await createUser(deps, { organizationId, email: DEMO_OWNER, role: "owner", password });
  else await typedSql(deps.db).direct.batch([setPasswordHashStatement(deps.db, existing.id, await hashPassword(password), deps.clock.now())]);
  return { email: DEMO_OWNER, password };
}

export async function setUpDemo(deps: Deps, ledger: Ledger) {
  const network = ledger.simulatedNetwork(Networks.TESTNET);
  if (!network) throw new Error("The demo runs on the simulated network: start it with LEDGER=simulated");

  const existing = await oldestOrganizationNamed(deps.db, DEMO_NAME);
  let organizationId: string;
  let apiKeys: { sandbox: string; live?: string };
  if (existing) {
    organizationId = existing.id;
    // Keys are stored hashed: a fresh sandbox key is the only way to show one again.
    apiKeys = { sandbox: await createApiKey(deps, { organizationId, environment: "sandbox" }) };
  } else {
    const created = await createOrganization(deps, { name: DEMO_NAME });
    organizationId = created.organization_id;
    apiKeys = { sandbox: created.sandbox_api_key, live: created.live_api_key };
  }
  const scope = { organizationId, environment: "sandbox" as const, principal: { kind: "key" as const, id: "demo", role: "admin" as const } };

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
  const owner = await demoOwner(deps, organizationId);
  return { organizationId, apiKeys, owner, payer, payment: paymentJson(payment, deps.config.publicUrl) };
}

export function printDemo(
  demo: Awaited<ReturnType<typeof setUpDemo>>,
  urls: { publicUrl: string; horizonUrl: string },
  databaseUrl: string,
  delivery: { webhookAllowPrivate: boolean; smtp: boolean },
) {
  const i = demo.payment.payment_instructions;
  // Where a webhook and a mail go, so that a newcomer's receiver on this machine works and a "sent" invoice can be found.
  const webhooks = delivery.webhookAllowPrivate
    ? "may go to this machine too (e.g. http://localhost:4000/webhooks; WEBHOOK_ALLOW_PRIVATE=false refuses private addresses)"
    : "public addresses only (WEBHOOK_ALLOW_PRIVATE=false): a receiver on this machine is refused";
  const mail = delivery.smtp
    ? "sent through SMTP_URL"
    : "not sent: each message (an invoice, a notice) is written to this log instead; set SMTP_URL to send it";
  const live = demo.apiKeys.live ? `\n  Live API key:       ${demo.apiKeys.live}   (production)` : "";
  // A PostgreSQL URL may hold a password: it is named, not printed.
  const database = databaseUrl.startsWith("file:")
    ? `${databaseUrl}   (the demo's own; DATABASE_URL=${databaseUrl} npm run --silent admin -- ... to manage it)`
    : "DATABASE_URL (PostgreSQL)";
  console.log(`
Demo ready (simulated Stellar test network, offline).
  Dashboard:          ${urls.publicUrl}/dashboard/
  Sign in as:         ${demo.owner.email}   password ${demo.owner.password}   (new this run)
  Database:           ${database}
  Organization:       ${demo.organizationId}
  Sandbox API key:    ${demo.apiKeys.sandbox}   (new this run: keys are shown only once)${live}
  Checkout URL:       ${demo.payment.checkout_url}
  Payment:            ${demo.payment.id} (${demo.payment.amount} XLM)
  Pay to:             ${i.muxed_destination}
                      or ${i.destination} with memo id ${i.memo}
  Payer secret:       ${demo.payer.secret()}   (10,000 XLM; import it in a wallet or sign with the SDK)
  Payer address:      ${demo.payer.publicKey()}
  Horizon:            ${urls.horizonUrl}
  Webhooks:           ${webhooks}
  Mail:               ${mail}
`);
}
