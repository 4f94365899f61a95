// The pages of the mailed one-time links, shown without a session: accepting an invitation (choose a
// password; the service signs the new user in) and resetting a password (then sign in again).
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, useTabTitle } from "../../components/ui.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";

const ACCEPT = graphql(`mutation AcceptInvitation($token: String!, $password: String!) { acceptInvitation(token: $token, password: $password) { user { id } } }`);
const PREVIEW = graphql(`query InvitationPreview($token: String!) { invitationPreview(token: $token) { organizationName inviterEmail email role } }`);
const RESET = graphql(`mutation ResetPassword($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }`);

/** The link's token: the `token` of the address's query. */
const tokenOfAddress = () => new URLSearchParams(location.search).get("token") ?? "";

const PASSWORD_HINT = "At least 10 characters.";

const ROLE_NAMES: Record<string, string> = { owner: "an owner", admin: "an admin", developer: "a developer", viewer: "a viewer" };

export function AcceptInvite(props: { onSignedIn: () => void }) {
  const [result, accept] = useMutation(ACCEPT);
  const [preview] = useQuery({ query: PREVIEW, variables: { token: tokenOfAddress() } });
  const invitation = preview.data?.invitationPreview;
  useTabTitle(invitation ? `Join ${invitation.organizationName} · Dashboard` : "Join the dashboard · Dashboard");
  if (preview.fetching && !invitation) return <p class="loading">Loading your invitation…</p>;
  if (!invitation) {
    return (
      <main class="login" id="main">
        <h1>Join the dashboard</h1>
        <Notice>{errorText(preview.error)}</Notice>
        <p>
          <a href="/dashboard/">Go to sign in</a>
        </p>
      </main>
    );
  }
  return (
    <main class="login" id="main">
      <h1>Join {invitation.organizationName}</h1>
      <p>
        <strong>{invitation.inviterEmail}</strong> invited you to the {invitation.organizationName} dashboard as {ROLE_NAMES[invitation.role] ?? invitation.role}. Choose a
        password to finish: you will sign in as <strong>{invitation.email}</strong>.
      </p>
      <NewPasswordForm
        label="Password"
        field="password"
        submit="Set password and sign in"
        error={result.error}
        busy={result.fetching}
        onSubmit={async (password) => {
          const answer = await accept({ token: tokenOfAddress(), password });
          if (answer.data?.acceptInvitation) props.onSignedIn();
        }}
      />
    </main>
  );
}

export function ResetPassword(props: { onDone: () => void }) {
  useTabTitle("Choose a new password · Dashboard");
  const [result, reset] = useMutation(RESET);
  const done = result.data?.resetPassword === true;
  return (
    <main class="login" id="main">
      <h1>Choose a new password</h1>
      {done ? (
        <>
          <Notice kind="ok">Your password is set. Every session of yours has ended: sign in with the new password.</Notice>
          <Button variant="primary" onClick={props.onDone}>
            Go to sign in
          </Button>
        </>
      ) : (
        <NewPasswordForm
          label="New password"
          field="newPassword"
          submit="Set new password"
          error={result.error}
          busy={result.fetching}
          onSubmit={(newPassword) => void reset({ token: tokenOfAddress(), newPassword })}
        />
      )}
    </main>
  );
}

/** A link's one field: the password to set (`field`: the argument the server names in its refusal), its refusal beside it. */
function NewPasswordForm(props: {
  label: string;
  field: string;
  submit: string;
  error: Parameters<typeof formErrors>[0];
  busy: boolean;
  onSubmit: (password: string) => void;
}) {
  const [password, setPassword] = useState("");
  const errors = formErrors(props.error, [props.field]);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit(password);
      }}
    >
      <Field
        label={props.label}
        hint={PASSWORD_HINT}
        type="password"
        autoComplete="new-password"
        required
        minLength={10}
        value={password}
        error={errors.of(props.field)}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      <Notice>{errors.other}</Notice>
      <Button type="submit" variant="primary" disabled={props.busy}>
        {props.submit}
      </Button>
    </form>
  );
}
