// The first-run checklist on Home (#27), as Stripe's "Get started": the four steps to a first paid
// test payment, each linking to where it is done, ticking itself as they happen (a payment completing
// arrives live; the other steps are done on their own screens, whose changes leave no cached answer
// behind: graphql.ts).
// It goes away once every step is done.
import { useQuery } from "@urql/preact";
import type { ComponentChildren } from "preact";
import { Link } from "wouter-preact";
import { graphql } from "../graphql.ts";
import { usePaymentEvents } from "../payment-events.ts";
import { useSession } from "../session.tsx";
import { FundTestWallet } from "./fund-test-wallet.tsx";

const SETUP = graphql(`
  query SetupChecklist {
    organization { id settlementAddress settlementWalletHealth { accountExists } }
    apiKeys { id environment revokedAt }
    webhookEndpoints(first: 1) { edges { node { id } } }
    payments(first: 1, status: completed) { edges { node { id } } }
  }
`);

interface Step {
  done: boolean;
  title: string;
  href: string;
  action: string;
  detail?: ComponentChildren;
}

export function SetupChecklist() {
  const session = useSession();
  const sandbox = session.environment === "sandbox";
  const [result, refetch] = useQuery({ query: SETUP });
  usePaymentEvents((payment) => payment.status === "completed" && refetch({ requestPolicy: "network-only" }));
  const data = result.data;
  if (!data) return null;
  const org = data.organization;
  // An account that does not exist yet cannot be paid: in the sandbox, funding it is part of the step.
  const walletUnfunded = org.settlementWalletHealth?.accountExists === false;
  const steps: Step[] = [
    {
      done: org.settlementAddress !== null && !(sandbox && walletUnfunded),
      title: sandbox ? "Set your settlement wallet and fund it" : "Set your settlement wallet",
      href: "/settings",
      action: "Open Settings",
      detail:
        org.settlementAddress === null ? (
          "Payments are paid to this Stellar account: none can be created until it is set."
        ) : sandbox && walletUnfunded ? (
          <>
            <span>The wallet does not exist on the test network yet: funding it with test XLM creates it.</span>
            <FundTestWallet />
          </>
        ) : null,
    },
    {
      done: data.apiKeys.some((k) => k.environment === session.environment && !k.revokedAt),
      title: "Create an API key",
      href: "/developers/api-keys",
      action: "Open API keys",
      detail: "Your server creates payments with it.",
    },
    {
      done: data.webhookEndpoints.edges.length > 0,
      title: "Add a webhook endpoint",
      href: "/developers/webhooks",
      action: "Open Webhooks",
      detail: "Your server hears of each payment there, signed.",
    },
    {
      done: data.payments.edges.length > 0,
      title: sandbox ? "Complete a first test payment" : "Receive a first payment",
      href: "/payments",
      action: "Open Payments",
      detail: sandbox ? "Create one, open its checkout link and pay it with the test wallet." : undefined,
    },
  ];
  const left = steps.filter((s) => !s.done).length;
  if (left === 0) return null;
  return (
    <section class="panel checklist" aria-labelledby="checklist-heading">
      <h2 id="checklist-heading">Get started</h2>
      <p class="muted">
        {steps.length - left} of {steps.length} steps done.
      </p>
      <ol>
        {steps.map((step) => (
          <li key={step.title} class={step.done ? "done" : ""}>
            <span class="tick" aria-hidden="true">
              {step.done ? "✓" : ""}
            </span>
            <div>
              <strong>{step.title}</strong> <span class="visually-hidden">{step.done ? "(done)" : "(to do)"}</span>
              {!step.done && step.detail && <p class="muted">{step.detail}</p>}
              {!step.done && (
                <p>
                  <Link href={step.href}>{step.action}</Link>
                </p>
              )}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
