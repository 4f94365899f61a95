// Team: who can sign in to this organization, and their roles (owners and admins change them and
// invite new members).
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Notice, Page, Table, When } from "../../components/ui.tsx";
import { useReauthentication } from "../components/reauthentication.tsx";
import { errorText, graphql } from "../graphql.ts";
import { type Role, can, useSession } from "../session.tsx";
import { Invitations } from "./team-invitations.tsx";

const USERS = graphql(`query Users { users { id email role twoFactorEnabled createdAt } organization { id twoFactorRequired } }`);
const REQUIRE_TWO_FACTOR = graphql(`
  mutation SetTwoFactorRequired($required: Boolean!, $password: String!, $code: String!) {
    setTwoFactorRequired(required: $required, password: $password, code: $code)
  }
`);
const SET_ROLE = graphql(`
  mutation UpdateUserRole($id: ID!, $role: UserRole!, $password: String!, $code: String) {
    updateUserRole(id: $id, role: $role, password: $password, code: $code) { id role }
  }
`);
const REMOVE = graphql(`mutation RemoveUser($id: ID!) { removeUser(id: $id) }`);

const ROLES: [Role, string][] = [
  ["owner", "Owner"],
  ["admin", "Admin"],
  ["developer", "Developer"],
  ["viewer", "Viewer"],
];

export function Team() {
  const session = useSession();
  const [result] = useQuery({ query: USERS });
  const [roleChange, setRole] = useMutation(SET_ROLE);
  // A role change asks for the password again (and the code with two-factor sign-in on).
  const [pending, setPending] = useState<{ id: string; email: string; role: Role } | null>(null);
  const reauthentication = useReauthentication();
  const [removal, remove] = useMutation(REMOVE);
  const users = result.data?.users ?? [];
  const mayManage = can.manage(session.viewer.user.role);
  return (
    <Page title="Team">
      <p class="muted">Owners and admins manage the team; developers handle API keys and webhooks; viewers read.</p>
      <Notice>{errorText(result.error ?? removal.error) ?? reauthentication.otherError(roleChange.error)}</Notice>
      {pending && (
        <form
          class="panel"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await setRole({ ...pending, ...reauthentication.values });
            if (answer.data) {
              setPending(null);
              reauthentication.reset();
            }
          }}
        >
          <h2>
            Make {pending.email} {ROLES.find(([value]) => value === pending.role)?.[1].toLowerCase()}
          </h2>
          {reauthentication.fields(roleChange.error)}
          <div class="actions">
            <Button type="submit" variant="primary" disabled={roleChange.fetching}>
              Change role
            </Button>
            <Button onClick={() => setPending(null)}>Cancel</Button>
          </div>
        </form>
      )}
      <Table caption="Team members" head={["Email", "Role", "Two-factor", "Since", ""]} rows={users.length}>
        {users.map((u) => (
          <tr key={u.id}>
            <td>{u.email}</td>
            <td>
              {mayManage && u.id !== session.viewer.user.id ? (
                <select
                  aria-label={`Role of ${u.email}`}
                  value={pending?.id === u.id ? pending.role : u.role}
                  onChange={(e) => setPending({ id: u.id, email: u.email, role: (e.target as HTMLSelectElement).value as Role })}
                >
                  {ROLES.map(([value, text]) => (
                    <option value={value} key={value}>
                      {text}
                    </option>
                  ))}
                </select>
              ) : (
                ROLES.find(([value]) => value === u.role)?.[1]
              )}
            </td>
            <td>{u.twoFactorEnabled ? "On" : "Off"}</td>
            <td>
              <When at={u.createdAt} />
            </td>
            <td>
              {mayManage && u.id !== session.viewer.user.id && (
                <Button
                  variant="danger"
                  aria-label={`Remove ${u.email}`}
                  onClick={async () => {
                    if (!confirm(`Remove ${u.email} from the team? Their sessions end at once.`)) return;
                    await remove({ id: u.id });
                  }}
                >
                  Remove
                </Button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      {session.viewer.user.role === "owner" && result.data && (
        <RequireTwoFactor required={result.data.organization.twoFactorRequired} />
      )}
      {mayManage && <Invitations roles={ROLES} callerRole={session.viewer.user.role} />}
    </Page>
  );
}

/** An owner requires two-factor sign-in of everyone (their own must be on), after the password and code again. */
function RequireTwoFactor(props: { required: boolean }) {
  const session = useSession();
  const [result, set] = useMutation(REQUIRE_TWO_FACTOR);
  const reauthentication = useReauthentication();
  const next = !props.required;
  return (
    <form
      class="panel"
      aria-labelledby="require-two-factor-heading"
      onSubmit={async (e) => {
        e.preventDefault();
        const { password, code } = reauthentication.values;
        const answer = await set({ required: next, password, code: code ?? "" });
        if (answer.data) reauthentication.reset();
      }}
    >
      <h2 id="require-two-factor-heading">Two-factor sign-in for everyone</h2>
      <p>
        {props.required
          ? "Required: every member signs in with a code from an authenticator app. Members without it can only set it up."
          : "Not required: each member chooses. When required, members without it must set it up before they can do anything else."}
      </p>
      {!session.viewer.user.twoFactorEnabled ? (
        <p class="muted">Turn on your own two-factor sign-in (Your account) before requiring it of everyone.</p>
      ) : (
        <>
          {reauthentication.fields(result.error)}
          <Notice>{reauthentication.otherError(result.error)}</Notice>
          <Button type="submit" variant={next ? "primary" : "danger"} disabled={result.fetching}>
            {next ? "Require two-factor sign-in" : "Stop requiring two-factor sign-in"}
          </Button>
        </>
      )}
    </form>
  );
}
