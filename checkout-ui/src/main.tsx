// The hosted checkout page for /c/<pay_|cs_ id> and /i/<inv_ id>, on the components the dashboard
// uses too (checkout-ui/components/).
import "./style.css";
import { render } from "preact";
import { Checkout } from "./checkout.tsx";

const root = document.getElementById("app")!;
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
root.replaceChildren();
render(<Checkout id={id} container={root} />, root);
