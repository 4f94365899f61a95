// Developers → API keys: create (the key shown once, with a copy button), list, revoke. Keys belong
// to the environment they are made in: the switch at the top chooses which.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, Page, SecretOnce, Status, Table, When } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";
import { useReauthentication } from "../components/reauthentication.tsx";
import { can, useSession } from "../session.tsx";

const KEYS = graphql(`query ApiKeys { apiKeys { id name prefix environment createdAt lastUsedAt revokedAt } }`);
const CREATE = graphql(`
  mutation CreateApiKey($environment: Environment!, $name: String, $password: String, $code: String) {
    createApiKey(environment: $environment, name: $name, password: $password, code: $code) { key apiKey { id } }
  }
`);
const REVOKE = graphql(`mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`);

export function ApiKeys() {
  const session = useSession();
  const [result, refetch] = useQuery({ query: KEYS });
  const [name, setName] = useState("");
  const [key, setKey] = useState<string | null>(null);
  const [created, create] = useMutation(CREATE);
  const [revoked, revoke] = useMutation(REVOKE);
  const keys = result.data?.apiKeys ?? [];
  const mayEdit = can.develop(session.viewer.user.role);
  const live = session.environment === "production";
  const refresh = () => refetch({ requestPolicy: "network-only" });
  // A live key opens the merchant's money: the server asks for the password again.
  const reauthentication = useReauthentication();
  return (
    <Page title="API keys">
      {key && <SecretOnce label="API key" value={key} onDone={() => setKey(null)} />}
      {mayEdit && (
        <form
          class="panel"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await create({ environment: session.environment, name: name.trim() || null, ...(live ? reauthentication.values : {}) });
            if (answer.data) {
              setKey(answer.data.createApiKey.key);
              setName("");
              reauthentication.reset();
              refresh();
            }
          }}
        >
          <h2>New {live ? "live" : "sandbox"} key</h2>
          <Field label="Key name" placeholder="Checkout server" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          {live && reauthentication.fields}
          <Notice>{errorText(created.error)}</Notice>
          <Button type="submit" variant="primary" disabled={created.fetching}>
            Create API key
          </Button>
        </form>
      )}
      <Notice>{errorText(result.error ?? revoked.error)}</Notice>
      <Table caption="API keys" head={["Name", "Key", "Created", "Last used", "Status", ""]} rows={keys.length} empty="No keys in this environment.">
        {keys.map((k) => (
          <tr key={k.id}>
            <td>{k.name ?? <span class="muted">unnamed</span>}</td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>
              <When at={k.createdAt} />
            </td>
            <td>
              <When at={k.lastUsedAt} />
            </td>
            <td>{k.revokedAt ? <Status value="inactive" /> : <Status value="active" />}</td>
            <td>
              {mayEdit && !k.revokedAt && (
                <Button
                  variant="danger"
                  aria-label={`Revoke ${k.name ?? k.prefix}`}
                  onClick={async () => {
                    if (!confirm(`Revoke ${k.name ?? k.prefix}? Requests with it are refused at once.`)) return;
                    await revoke({ id: k.id });
                    refresh();
                  }}
                >
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        ))}
      </Table>
    </Page>
  );
}
