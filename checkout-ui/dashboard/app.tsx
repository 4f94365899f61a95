// The shell: sign-in when there is no session; otherwise the navigation, the environment switch and
// the screen of the address. Screens live in pages/.
import type { Client } from "@urql/core";
import { Provider } from "@urql/preact";
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { Link, Route, Router, Switch, useLocation } from "wouter-preact";
import { type Environment, clientFor, errorCode, graphql } from "./graphql.ts";
import { TwoFactor } from "./pages/account.tsx";
import { Login } from "./pages/login.tsx";
import { AcceptInvite, ResetPassword } from "./pages/one-time-links.tsx";
import { ROUTES } from "./routes.tsx";
import { type Session, SessionContext, type Viewer, storeEnvironment, storedEnvironment } from "./session.tsx";
import { Button, Page, TabTitleSuffix } from "../components/ui.tsx";

const VIEWER = graphql(`
  query Viewer {
    viewer {
      user { id email role twoFactorEnabled }
      organization { id name }
      environment
      twoFactorSetupRequired
    }
  }
`);
const LOGOUT = graphql(`mutation Logout { logout }`);

type Loaded = { state: "loading" } | { state: "signed-out" } | { state: "signed-in"; viewer: Viewer } | { state: "failed"; message: string };

async function loadViewer(client: Client): Promise<Loaded> {
  const result = await client.query(VIEWER, {}, { requestPolicy: "network-only" }).toPromise();
  const viewer = result.data?.viewer;
  // A session's viewer has a user; without one the dashboard has nobody to show (an API key is no sign-in).
  if (viewer?.user) {
    return { state: "signed-in", viewer: { user: viewer.user, organization: viewer.organization, twoFactorSetupRequired: viewer.twoFactorSetupRequired } };
  }
  if (!result.error || errorCode(result.error) === "UNAUTHENTICATED") return { state: "signed-out" };
  return { state: "failed", message: "The dashboard could not reach the service. Reload to try again." };
}

/** The page of a mailed one-time link, when the address is one. */
function oneTimeLinkPage(): "accept-invite" | "reset-password" | null {
  const path = location.pathname.replace(/\/+$/, "");
  if (path === "/dashboard/accept-invite") return "accept-invite";
  if (path === "/dashboard/reset-password") return "reset-password";
  return null;
}

export function App() {
  const [environment, setEnvironmentState] = useState<Environment>(storedEnvironment);
  const client = useMemo(() => clientFor(environment), [environment]);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const reload = () => loadViewer(client).then(setLoaded);
  useEffect(() => void reload(), []);

  // The mailed links' pages work without a session (and whoever holds one): handled before the gate.
  const [linkPage, setLinkPage] = useState(oneTimeLinkPage);
  const leaveLinkPage = (signedIn: boolean) => {
    history.replaceState(null, "", "/dashboard/");
    setLinkPage(null);
    if (signedIn) void reload();
    else setLoaded({ state: "signed-out" });
  };
  if (linkPage) {
    return (
      <Provider value={client}>
        {linkPage === "accept-invite" ? <AcceptInvite onSignedIn={() => leaveLinkPage(true)} /> : <ResetPassword onDone={() => leaveLinkPage(false)} />}
      </Provider>
    );
  }
  if (loaded.state === "loading") return <p class="loading">Loading the dashboard…</p>;
  if (loaded.state === "failed") return <p role="alert">{loaded.message}</p>;
  if (loaded.state === "signed-out") {
    return (
      <Provider value={client}>
        <Login onSignedIn={reload} />
      </Provider>
    );
  }
  const session: Session = {
    viewer: loaded.viewer,
    environment,
    setEnvironment(next) {
      storeEnvironment(next);
      setEnvironmentState(next);
    },
    async signOut() {
      await client.mutation(LOGOUT, {}).toPromise();
      setLoaded({ state: "signed-out" });
    },
    refresh: () => void reload(),
  };
  if (session.viewer.twoFactorSetupRequired) {
    // The server refuses everything else to this session until it is set up.
    return (
      <SessionContext.Provider value={session}>
        <TabTitleSuffix.Provider value={`${session.viewer.organization.name} · Dashboard`}>
          <Provider value={client}>
            <main id="main" class="setup-required">
              <Page title="Set up two-factor sign-in" actions={<Button onClick={() => void session.signOut()}>Sign out</Button>}>
                <p>
                  {session.viewer.organization.name} requires two-factor sign-in. Set it up to use the dashboard as{" "}
                  <strong>{session.viewer.user.email}</strong>.
                </p>
                <TwoFactor enabled={false} onChanged={session.refresh} />
              </Page>
            </main>
          </Provider>
        </TabTitleSuffix.Provider>
      </SessionContext.Provider>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <TabTitleSuffix.Provider value={`${session.viewer.organization.name} · Dashboard`}>
        <Provider value={client} key={environment}>
          <Router base="/dashboard">
            <Shell session={session}>
              <Switch>
                {ROUTES.map((route) => (
                  <Route path={route.path} component={route.component} key={route.path} />
                ))}
                <Route>
                  <p>This page does not exist. Choose one in the navigation.</p>
                </Route>
              </Switch>
            </Shell>
          </Router>
        </Provider>
      </TabTitleSuffix.Provider>
    </SessionContext.Provider>
  );
}

const NAV: [string, string][] = [
  ["/", "Home"],
  ["/payments", "Payments"],
  ["/refunds", "Refunds"],
  ["/invoices", "Invoices"],
  ["/payment-links", "Payment links"],
  ["/checkout-sessions", "Checkout sessions"],
  ["/customers", "Customers"],
  ["/unmatched", "Unmatched payments"],
  ["/developers", "Developers"],
  ["/settings", "Settings"],
  ["/team", "Team"],
  ["/activity", "Activity"],
  ["/account", "Your account"],
];

function Shell(props: { session: Session; children: ComponentChildren }) {
  const { session } = props;
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  // Escape closes the open menu, as it closes any disclosure a phone user opened, and gives Menu the focus back.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setMenuOpen(false);
      document.querySelector<HTMLElement>("header.top .menu-button")?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  const live = session.environment === "production";
  const current = (href: string) => (href === "/" ? location === "/" : location === href || location.startsWith(`${href}/`));
  return (
    <div class={`shell ${live ? "live" : "sandbox"}`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {/* At phone width the header keeps one row (Menu, organization, environment): who is signed in and
          Sign out move into the menu. */}
      <header class="top">
        <Button class="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </Button>
        <span class="org">{session.viewer.organization.name}</span>
        <fieldset class="env-switch">
          <legend class="visually-hidden">Environment</legend>
          {(["sandbox", "production"] as const).map((env) => (
            <label key={env} class={session.environment === env ? "on" : ""}>
              <input type="radio" name="environment" value={env} checked={session.environment === env} onChange={() => session.setEnvironment(env)} />
              {env === "sandbox" ? "Sandbox" : "Live"}
            </label>
          ))}
        </fieldset>
        <span class="who wide-only">{session.viewer.user.email}</span>
        <Button class="wide-only" onClick={() => void session.signOut()}>
          Sign out
        </Button>
      </header>
      {!live && (
        <p class="env-banner" role="note">
          Sandbox: test data on the test network. Switch to Live for real payments.
        </p>
      )}
      <div class="body">
        <nav id="nav" aria-label="Main" class={menuOpen ? "open" : ""}>
          <ul>
            {NAV.map(([href, text]) => (
              <li key={href}>
                <Link href={href} aria-current={current(href) ? "page" : undefined} onClick={() => setMenuOpen(false)}>
                  {text}
                </Link>
              </li>
            ))}
          </ul>
          <p class="nav-account phone-only">
            <span class="who">{session.viewer.user.email}</span>
            <Button onClick={() => void session.signOut()}>Sign out</Button>
          </p>
        </nav>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </div>
  );
}
