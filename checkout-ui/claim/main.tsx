// The payer's refund claim page for /r/<re_ id>, on the checkout's style and the shared components.
import "../src/style.css";
import { render } from "preact";
import { RefundClaimPage } from "./claim.tsx";

const root = document.getElementById("app")!;
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
root.replaceChildren();
render(<RefundClaimPage id={id} container={root} />, root);
