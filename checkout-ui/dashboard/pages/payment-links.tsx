// Payment links: create, copy the URL, show its QR code, activate or deactivate.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { QrCode } from "../../components/qr.tsx";
import { Button, CopyButton, Field, Money, Notice, Page, Pager, Status, Table, When } from "../../components/ui.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { usePaging } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";

const LINKS = graphql(`
  query PaymentLinks($first: Int, $after: String, $last: Int, $before: String) {
    paymentLinks(first: $first, after: $after, last: $last, before: $before) {
      edges { node { id url active amount description createdAt settlementAsset { assetCode issuerAddress } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);
const CREATE = graphql(`mutation CreatePaymentLink($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { id url } }`);
const ACTIVATE = graphql(`mutation ActivatePaymentLink($id: ID!) { activatePaymentLink(id: $id) { id active } }`);
const DEACTIVATE = graphql(`mutation DeactivatePaymentLink($id: ID!) { deactivatePaymentLink(id: $id) { id active } }`);

export function PaymentLinks() {
  const session = useSession();
  const paging = usePaging();
  const [result] = useQuery({ query: LINKS, variables: paging.variables });
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const [activation, activate] = useMutation(ACTIVATE);
  const [deactivation, deactivate] = useMutation(DEACTIVATE);
  const rows = result.data?.paymentLinks.edges.map((e) => e.node) ?? [];
  const mayWrite = can.write(session.viewer.user.role);
  return (
    <Page title="Payment links" actions={mayWrite && !creating && <Button onClick={() => setCreating(true)}>Create payment link</Button>}>
      {creating && <LinkForm onDone={() => setCreating(false)} />}
      <Notice>{errorText(result.error ?? activation.error ?? deactivation.error)}</Notice>
      <Table caption="Payment links" head={["Link", "Amount", "Status", "Created", ""]} rows={rows.length} empty="No payment links yet.">
        {rows.map((link) => (
          <tr key={link.id}>
            <td>
              <a href={link.url}>{link.description ?? link.id}</a>
              <div>
                <code class="muted">{link.id}</code>
              </div>
              {shown === link.id && <QrCode value={link.url} label={`QR code of ${link.url}`} />}
            </td>
            <td>
              <Money amount={link.amount} asset={link.settlementAsset} />
            </td>
            <td>
              <Status value={link.active ? "active" : "inactive"} />
            </td>
            <td>
              <When at={link.createdAt} />
            </td>
            <td class="actions">
              <CopyButton value={link.url} label={`link ${link.id}`} />
              <Button aria-expanded={shown === link.id} aria-label={`QR code of ${link.id}`} onClick={() => setShown(shown === link.id ? null : link.id)}>
                QR code
              </Button>
              {mayWrite &&
                (link.active ? (
                  <Button aria-label={`Deactivate ${link.id}`} onClick={() => void deactivate({ id: link.id })}>
                    Deactivate
                  </Button>
                ) : (
                  <Button aria-label={`Activate ${link.id}`} onClick={() => void activate({ id: link.id })}>
                    Activate
                  </Button>
                ))}
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.paymentLinks.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

function LinkForm(props: { onDone: () => void }) {
  const [amount, setAmount] = useState("");
  const [description, setDescription] = useState("");
  const [result, create] = useMutation(CREATE);
  const errors = formErrors(result.error, ["amount", "description"]);
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await create({ input: { amount, description: description || null } });
        if (answer.data) props.onDone();
      }}
    >
      <h2>New payment link</h2>
      <Field label="Amount" inputMode="decimal" required placeholder="25.00" hint="In the settlement asset (XLM unless set in Settings)." value={amount} error={errors.of("amount")} onInput={(e) => setAmount(e.currentTarget.value)} />
      <Field label="Description" value={description} error={errors.of("description")} onInput={(e) => setDescription(e.currentTarget.value)} />
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Create link
        </Button>
        <Button onClick={props.onDone}>Cancel</Button>
      </div>
    </form>
  );
}
