// The merchant dashboard at /dashboard: sign in, then every screen over GraphQL with the session
// cookie. See README "Dashboard".
import "./style.css";
import "./forms.css";
import { render } from "preact";
import { App } from "./app.tsx";

const root = document.getElementById("app")!;
// The page's "Loading…" placeholder goes first: Preact keeps what it does not reuse, and a first
// screen other than the app's own loading line (a mailed link's page) would not reuse it.
root.replaceChildren();
render(<App />, root);
