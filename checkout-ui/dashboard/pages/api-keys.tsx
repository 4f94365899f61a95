// Developers → API keys: create (the key shown once, with a copy button) with a role at most the
// viewer's, list, revoke. Keys belong to the environment they are made in: the switch at the top
// chooses which. Keys whose maker has left the team are marked, and revoked together in one click.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, Page, SecretOnce, Select, Status, Table, When } from "../../components/ui.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { useReauthentication } from "../components/reauthentication.tsx";
import { type Role, can, useSession } from "../session.tsx";

const KEYS = graphql(`query ApiKeys { apiKeys { id name prefix environment role creatorRemoved createdAt lastUsedAt revokedAt } }`);
const CREATE = graphql(`
  mutation CreateApiKey($environment: Environment!, $name: String, $role: ApiKeyRole, $password: String, $code: String) {
    createApiKey(environment: $environment, name: $name, role: $role, password: $password, code: $code) { key apiKey { id } }
  }
`);
const REVOKE = graphql(`mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`);
const REVOKE_ORPHANS = graphql(`mutation RevokeApiKeysOfRemovedUsers { revokeApiKeysOfRemovedUsers { id revokedAt } }`);

type KeyRole = "admin" | "developer";
const ROLE_WORDS: Record<KeyRole, string> = {
  admin: "Admin: everything a key may do",
  developer: "Developer: reads, API keys and webhooks",
};
/** The roles the viewer may give a key, as the server allows them: at most their own. */
const keyRolesFor = (role: Role): KeyRole[] => (can.write(role) ? ["admin", "developer"] : ["developer"]);

export function ApiKeys() {
  const session = useSession();
  const [result] = useQuery({ query: KEYS });
  const roles = keyRolesFor(session.viewer.user.role);
  const [name, setName] = useState("");
  const [role, setRole] = useState<KeyRole>(roles[0]!);
  const [key, setKey] = useState<string | null>(null);
  const [created, create] = useMutation(CREATE);
  const [revoked, revoke] = useMutation(REVOKE);
  const [orphansRevoked, revokeOrphans] = useMutation(REVOKE_ORPHANS);
  const keys = result.data?.apiKeys ?? [];
  const orphans = keys.filter((k) => k.creatorRemoved && !k.revokedAt);
  const mayEdit = can.develop(session.viewer.user.role);
  const live = session.environment === "production";
  // A live key opens the merchant's money: the server asks for the password again.
  const reauthentication = useReauthentication();
  const keyErrors = formErrors(created.error, KEY_FIELDS);
  return (
    <Page title="API keys">
      {key && <SecretOnce label="API key" value={key} onDone={() => setKey(null)} />}
      {mayEdit && (
        <form
          class="panel"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await create({ environment: session.environment, name: name.trim() || null, role, ...(live ? reauthentication.values : {}) });
            if (answer.data) {
              setKey(answer.data.createApiKey.key);
              setName("");
              reauthentication.reset();
            }
          }}
        >
          <h2>New {live ? "live" : "sandbox"} key</h2>
          <Field label="Key name" placeholder="Checkout server" value={name} error={keyErrors.of("name")} onInput={(e) => setName(e.currentTarget.value)} />
          <Select label="Key role" value={role} options={roles.map((r) => [r, ROLE_WORDS[r]])} error={keyErrors.of("role")} onChange={(value) => setRole(value as KeyRole)} />
          <p class="muted">No key sees the team or changes the settlement wallet, assets or rates: those stay in the dashboard.</p>
          {live && reauthentication.fields(created.error)}
          <Notice>{reauthentication.otherError(created.error, KEY_FIELDS)}</Notice>
          <Button type="submit" variant="primary" disabled={created.fetching}>
            Create API key
          </Button>
        </form>
      )}
      {mayEdit && orphans.length > 0 && (
        <Notice>
          {orphans.length === 1 ? "1 key was" : `${orphans.length} keys were`} made by someone no longer on the team and still work.{" "}
          <Button
            variant="danger"
            disabled={orphansRevoked.fetching}
            onClick={async () => {
              if (!confirm(`Revoke the ${orphans.length} keys made by removed users? Requests with them are refused at once.`)) return;
              await revokeOrphans({});
            }}
          >
            {orphans.length === 1 ? "Revoke the key made by a removed user" : `Revoke the ${orphans.length} keys made by removed users`}
          </Button>
        </Notice>
      )}
      <Notice>{errorText(result.error ?? revoked.error ?? orphansRevoked.error)}</Notice>
      <Table caption="API keys" head={["Name", "Key", "Role", "Created", "Last used", "Status", ""]} rows={keys.length} empty="No keys in this environment.">
        {keys.map((k) => (
          <tr key={k.id}>
            <td>
              {k.name ?? <span class="muted">unnamed</span>}
              {k.creatorRemoved && (
                <>
                  {" "}
                  <span class="status status-pending key-mark">made by a removed user</span>
                </>
              )}
            </td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>{k.role}</td>
            <td>
              <When at={k.createdAt} />
            </td>
            <td>
              <When at={k.lastUsedAt} />
            </td>
            <td>{k.revokedAt ? <Status value="revoked" /> : <Status value="active" />}</td>
            <td>
              {mayEdit && !k.revokedAt && (
                <Button
                  variant="danger"
                  aria-label={`Revoke ${k.name ?? k.prefix}`}
                  onClick={async () => {
                    if (!confirm(`Revoke ${k.name ?? k.prefix}? Requests with it are refused at once.`)) return;
                    await revoke({ id: k.id });
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

/** The new key's fields the server's refusal is shown beside (extensions.field). */
const KEY_FIELDS = ["name", "role"] as const;
