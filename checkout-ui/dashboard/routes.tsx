// Each screen's address under /dashboard.
import type { ComponentType } from "preact";
import { Link } from "wouter-preact";
import { Page } from "../components/ui.tsx";
import { Account } from "./pages/account.tsx";
import { Activity } from "./pages/activity.tsx";
import { ApiKeys } from "./pages/api-keys.tsx";
import { Home } from "./pages/home.tsx";
import { Settings } from "./pages/settings.tsx";
import { Team } from "./pages/team.tsx";
import { CheckoutSessions } from "./pages/checkout-sessions.tsx";
import { CustomerDetail, Customers } from "./pages/customers.tsx";
import { Events } from "./pages/events.tsx";
import { InvoiceDetail, Invoices } from "./pages/invoices.tsx";
import { PaymentLinks } from "./pages/payment-links.tsx";
import { PaymentDetail, Payments } from "./pages/payments.tsx";
import { RefundDetail, Refunds } from "./pages/refunds.tsx";
import { UnmatchedPayments } from "./pages/unmatched.tsx";
import { WebhookEndpointDetail, Webhooks } from "./pages/webhooks.tsx";

function Developers() {
  return (
    <Page title="Developers">
      <ul class="cards">
        <li>
          <Link href="/developers/api-keys">API keys</Link>
          <p class="muted">Keys for the REST and GraphQL APIs of this environment.</p>
        </li>
        <li>
          <Link href="/developers/webhooks">Webhooks</Link>
          <p class="muted">Endpoints that receive your events, their signing secrets and delivery logs.</p>
        </li>
        <li>
          <Link href="/developers/events">Events</Link>
          <p class="muted">Every event with its deliveries; send any of them again.</p>
        </li>
      </ul>
    </Page>
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const ROUTES: { path: string; component: ComponentType<any> }[] = [
  { path: "/", component: Home },
  { path: "/payments", component: Payments },
  { path: "/payments/:id", component: PaymentDetail },
  { path: "/refunds", component: Refunds },
  { path: "/refunds/:id", component: RefundDetail },
  { path: "/invoices", component: Invoices },
  { path: "/invoices/:id", component: InvoiceDetail },
  { path: "/payment-links", component: PaymentLinks },
  { path: "/checkout-sessions", component: CheckoutSessions },
  { path: "/customers", component: Customers },
  { path: "/customers/:id", component: CustomerDetail },
  { path: "/unmatched", component: UnmatchedPayments },
  { path: "/developers", component: Developers },
  { path: "/developers/api-keys", component: ApiKeys },
  { path: "/developers/webhooks", component: Webhooks },
  { path: "/developers/events", component: Events },
  { path: "/settings", component: Settings },
  { path: "/team", component: Team },
  { path: "/activity", component: Activity },
  { path: "/account", component: Account },
  { path: "/developers/webhooks/:id", component: WebhookEndpointDetail },
];
