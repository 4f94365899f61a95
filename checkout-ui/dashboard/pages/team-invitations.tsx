// The Team screen's invitations (owners and admins): invite an address with a role (the service
// mails a one-time link), and the pending invitations with Revoke.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, Select, Table, When } from "../../components/ui.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import type { Role } from "../session.tsx";

const INVITATIONS = graphql(`query Invitations { invitations { id email role expiresAt } }`);
const INVITE = graphql(`mutation InviteUser($email: String!, $role: UserRole!) { inviteUser(email: $email, role: $role) { id email } }`);
const REVOKE = graphql(`mutation RevokeInvitation($id: ID!) { revokeInvitation(id: $id) }`);

export function Invitations(props: { roles: [Role, string][]; callerRole: Role }) {
  const [result] = useQuery({ query: INVITATIONS });
  const [invitation, invite] = useMutation(INVITE);
  const [revocation, revoke] = useMutation(REVOKE);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("developer");
  const [sent, setSent] = useState<string | null>(null);
  // Only an owner invites an owner (the service refuses an admin's).
  const roles = props.roles.filter(([value]) => value !== "owner" || props.callerRole === "owner");
  const pending = result.data?.invitations ?? [];
  const errors = formErrors(invitation.error, ["email", "role"]);
  const roleName = (value: string) => props.roles.find(([r]) => r === value)?.[1] ?? value;
  return (
    <>
      <form
        class="panel"
        aria-labelledby="invite-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setSent(null);
          const answer = await invite({ email, role });
          if (answer.data) {
            setSent(`Invitation sent to ${answer.data.inviteUser.email}.`);
            setEmail("");
          }
        }}
      >
        <h2 id="invite-title">Invite</h2>
        <Field label="Email" type="email" autoComplete="off" required value={email} error={errors.of("email")} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Select label="Role" value={role} options={roles} error={errors.of("role")} onChange={(value) => setRole(value as Role)} />
        <Notice>{errors.other}</Notice>
        <Notice kind="ok">{sent}</Notice>
        <Button type="submit" variant="primary" disabled={invitation.fetching}>
          Send invitation
        </Button>
      </form>
      <Notice>{errorText(result.error ?? revocation.error)}</Notice>
      <Table caption="Pending invitations" head={["Email", "Role", "Expires", ""]} rows={pending.length} empty="No pending invitations.">
        {pending.map((i) => (
          <tr key={i.id}>
            <td>{i.email}</td>
            <td>{roleName(i.role)}</td>
            <td>
              <When at={i.expiresAt} />
            </td>
            <td>
              <Button
                variant="danger"
                aria-label={`Revoke the invitation of ${i.email}`}
                onClick={() => void revoke({ id: i.id })}
              >
                Revoke
              </Button>
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
