// Team: who can sign in to this organization, and their roles (owners and admins change them and
// invite new members).
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Notice, Page, Table, When } from "../../components/ui.tsx";
import { useReauthentication } from "../components/reauthentication.tsx";
import { errorText, graphql } from "../graphql.ts";
import { type Role, can, useSession } from "../session.tsx";
import { Invitations } from "./team-invitations.tsx";

const USERS = graphql(`query Users { users { id email role createdAt } }`);
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
  const [result, refetch] = useQuery({ query: USERS });
  const [roleChange, setRole] = useMutation(SET_ROLE);
  // A role change asks for the password again (and the code with two-factor sign-in on).
  const [pending, setPending] = useState<{ id: string; email: string; role: Role } | null>(null);
  const reauthentication = useReauthentication();
  const [removal, remove] = useMutation(REMOVE);
  const users = result.data?.users ?? [];
  const mayManage = can.manage(session.viewer.user.role);
  const refresh = () => refetch({ requestPolicy: "network-only" });
  return (
    <Page title="Team">
      <p class="muted">Owners and admins manage the team; developers handle API keys and webhooks; viewers read.</p>
      <Notice>{errorText(result.error ?? roleChange.error ?? removal.error)}</Notice>
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
            refresh();
          }}
        >
          <h2>
            Make {pending.email} {ROLES.find(([value]) => value === pending.role)?.[1].toLowerCase()}
          </h2>
          {reauthentication.fields}
          <div class="actions">
            <Button type="submit" variant="primary" disabled={roleChange.fetching}>
              Change role
            </Button>
            <Button onClick={() => (setPending(null), refresh())}>Cancel</Button>
          </div>
        </form>
      )}
      <Table caption="Team members" head={["Email", "Role", "Since", ""]} rows={users.length}>
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
                    refresh();
                  }}
                >
                  Remove
                </Button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      {mayManage && <Invitations roles={ROLES} callerRole={session.viewer.user.role} />}
    </Page>
  );
}
