// Settings of the environment chosen at the top: the organization's and the checkout's names, the
// settlement wallet with its health on the ledger, enabled assets and pricing rates. Where money goes
// (the wallet, an asset, a rate) changes with the password again, and never with an API key.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Money, Notice, Page, Table } from "../../components/ui.tsx";
import { FundTestWallet } from "../components/fund-test-wallet.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { useReauthentication } from "../components/reauthentication.tsx";
import { can, useSession } from "../session.tsx";

const SETTINGS = graphql(`
  query Settings {
    organization {
      id name displayName checkoutName environment settlementAddress
      enabledAssets { assetCode issuerAddress }
      rates { currency price asset { assetCode issuerAddress } }
      settlementWalletHealth { healthy accountExists error missingTrustlines { assetCode issuerAddress } balances { balance asset { assetCode issuerAddress } } }
    }
  }
`);
const UPDATE = graphql(`mutation UpdateOrganization($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id name displayName checkoutName } }`);
const SET_WALLET = graphql(`
  mutation SetSettlementWallet($address: String!, $password: String, $code: String) {
    setSettlementWallet(address: $address, password: $password, code: $code) { id settlementAddress }
  }
`);
const ENABLE_ASSET = graphql(`
  mutation EnableAsset($assetCode: String!, $issuer: String!, $password: String, $code: String) {
    enableAsset(assetCode: $assetCode, issuerAddress: $issuer, password: $password, code: $code) { id }
  }
`);
const SET_RATE = graphql(`
  mutation SetRate($assetCode: String!, $currency: String!, $price: String!, $password: String, $code: String) {
    setExchangeRate(assetCode: $assetCode, currency: $currency, price: $price, password: $password, code: $code) { id }
  }
`);

export function Settings() {
  const session = useSession();
  const [result] = useQuery({ query: SETTINGS });
  const org = result.data?.organization;
  if (!org) return <Page title="Settings">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const mayEdit = can.manage(session.viewer.user.role);
  const health = org.settlementWalletHealth;
  const credit = org.enabledAssets.filter((a) => a.issuerAddress !== null);
  return (
    <Page title="Settings">
      <Names org={org} disabled={!mayEdit} />
      <section class="panel" aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Settlement wallet ({session.environment === "production" ? "live" : "sandbox"})</h2>
        <p>{org.settlementAddress ? <code>{org.settlementAddress}</code> : "No wallet yet: payments cannot be created in this environment."}</p>
        {health && (
          <Notice kind={health.healthy ? "ok" : "error"}>
            {health.healthy
              ? "The wallet exists on the ledger and can receive every enabled asset."
              : health.error ??
                (health.accountExists === false
                  ? "The account does not exist on the ledger yet: fund it with XLM."
                  : `The account has no trustline for ${health.missingTrustlines.map((a) => a.assetCode).join(", ")}: payments in it cannot arrive.`)}
          </Notice>
        )}
        {health && health.balances.length > 0 && (
          <p>
            Balance: {health.balances.map((b, i) => (
              <span key={`${b.asset.assetCode}:${b.asset.issuerAddress ?? ""}`}>
                {i > 0 && ", "}
                <Money amount={b.balance} asset={b.asset} />
              </span>
            ))}
          </p>
        )}
        {mayEdit && session.environment === "sandbox" && health?.accountExists === false && <FundTestWallet />}
        {mayEdit && <WalletForm />}
      </section>
      <section class="panel" aria-labelledby="assets-heading">
        <h2 id="assets-heading">Assets</h2>
        <p>
          XLM is always enabled.{" "}
          {credit.length ? `Also: ${credit.map((a) => `${a.assetCode} (issuer ${a.issuerAddress!.slice(0, 6)}…)`).join(", ")}.` : "No other asset yet."}
        </p>
        {mayEdit && <AssetForm />}
      </section>
      <section class="panel" aria-labelledby="rates-heading">
        <h2 id="rates-heading">Pricing rates</h2>
        <Table caption="Pricing rates" head={["Asset", "Currency", "Price of one unit"]} rows={org.rates.length} empty="No rates: payments are priced in assets only.">
          {org.rates.map((r) => (
            <tr key={`${r.asset.assetCode}-${r.currency}`}>
              <td>{r.asset.assetCode}</td>
              <td>{r.currency}</td>
              <td>{r.price}</td>
            </tr>
          ))}
        </Table>
        {mayEdit && <RateForm />}
      </section>
    </Page>
  );
}

function Names(props: { org: { name: string; displayName: string | null }; disabled: boolean }) {
  const session = useSession();
  const [name, setName] = useState(props.org.name);
  const [displayName, setDisplayName] = useState(props.org.displayName ?? "");
  const [result, update] = useMutation(UPDATE);
  const errors = formErrors(result.error, ["name", "displayName"]);
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await update({ input: { name, displayName: displayName.trim() || null } });
        // The header and the tab's title name the organization: the session's viewer is read again.
        if (answer.data) session.refresh();
      }}
    >
      <h2>Organization</h2>
      <Field label="Organization name" required disabled={props.disabled} value={name} error={errors.of("name")} onInput={(e) => setName(e.currentTarget.value)} />
      <Field
        label="Name on the checkout"
        hint="What payers see in this environment; empty: the organization name."
        disabled={props.disabled}
        error={errors.of("displayName")}
        value={displayName}
        onInput={(e) => setDisplayName(e.currentTarget.value)}
      />
      <Notice>{errors.other}</Notice>
      {result.data && !result.error && <Notice kind="ok">Saved.</Notice>}
      {!props.disabled && (
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Save names
        </Button>
      )}
    </form>
  );
}

function WalletForm() {
  const [address, setAddress] = useState("");
  const [result, save] = useMutation(SET_WALLET);
  // The wallet decides where the money goes: the server asks for the password again.
  const reauthentication = useReauthentication();
  const errors = formErrors(result.error, WALLET_FIELDS);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await save({ address: address.trim(), ...reauthentication.values });
        if (answer.data) (setAddress(""), reauthentication.reset());
      }}
    >
      <Field
        label="New settlement wallet"
        placeholder="G…"
        required
        value={address}
        error={errors.of("address")}
        onInput={(e) => setAddress(e.currentTarget.value)}
      />
      {reauthentication.fields(result.error)}
      <Notice>{reauthentication.otherError(result.error, WALLET_FIELDS)}</Notice>
      <Button type="submit" disabled={result.fetching}>
        Change wallet
      </Button>
    </form>
  );
}

function AssetForm() {
  const [code, setCode] = useState("");
  const [issuer, setIssuer] = useState("");
  const [result, enable] = useMutation(ENABLE_ASSET);
  const reauthentication = useReauthentication({ password: "Password to enable the asset", code: "Code to enable the asset" });
  const errors = formErrors(result.error, ASSET_FIELDS);
  return (
    <form
      class="filters"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await enable({ assetCode: code.trim(), issuer: issuer.trim(), ...reauthentication.values });
        if (answer.data) (setCode(""), setIssuer(""), reauthentication.reset());
      }}
    >
      <Field label="Asset code" required placeholder="USDC" value={code} error={errors.of("assetCode")} onInput={(e) => setCode(e.currentTarget.value)} />
      <Field label="Issuer" required placeholder="G…" value={issuer} error={errors.of("issuerAddress")} onInput={(e) => setIssuer(e.currentTarget.value)} />
      {reauthentication.fields(result.error)}
      <Button type="submit" disabled={result.fetching}>
        Enable asset
      </Button>
      <Notice>{reauthentication.otherError(result.error, ASSET_FIELDS)}</Notice>
    </form>
  );
}

function RateForm() {
  const [code, setCode] = useState("XLM");
  const [currency, setCurrency] = useState("USD");
  const [price, setPrice] = useState("");
  const [result, set] = useMutation(SET_RATE);
  const reauthentication = useReauthentication({ password: "Password to set the rate", code: "Code to set the rate" });
  const errors = formErrors(result.error, RATE_FIELDS);
  return (
    <form
      class="filters"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await set({ assetCode: code.trim(), currency: currency.trim(), price: price.trim(), ...reauthentication.values });
        if (answer.data) (setPrice(""), reauthentication.reset());
      }}
    >
      <Field label="Rate asset" required value={code} error={errors.of("assetCode")} onInput={(e) => setCode(e.currentTarget.value)} />
      <Field label="Currency" required value={currency} error={errors.of("currency")} onInput={(e) => setCurrency(e.currentTarget.value)} />
      <Field label="Price" inputMode="decimal" required placeholder="0.25" value={price} error={errors.of("price")} onInput={(e) => setPrice(e.currentTarget.value)} />
      {reauthentication.fields(result.error)}
      <Button type="submit" disabled={result.fetching}>
        Set rate
      </Button>
      <Notice>{reauthentication.otherError(result.error, RATE_FIELDS)}</Notice>
    </form>
  );
}

/** The fields each form shows the server's refusal beside (extensions.field), besides the password again. */
const WALLET_FIELDS = ["address"] as const;
const ASSET_FIELDS = ["assetCode", "issuerAddress"] as const;
const RATE_FIELDS = ["assetCode", "currency", "price"] as const;
