// The pages of the mailed one-time links, shown without a session: accepting an invitation (choose a
// password; the service signs the new user in) and resetting a password (then sign in again).
import { useMutation } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";

const ACCEPT = graphql(`mutation AcceptInvitation($token: String!, $password: String!) { acceptInvitation(token: $token, password: $password) { user { id } } }`);
const RESET = graphql(`mutation ResetPassword($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }`);

/** The link's token: the `token` of the address's query. */
const tokenOfAddress = () => new URLSearchParams(location.search).get("token") ?? "";

const PASSWORD_HINT = "At least 10 characters.";

export function AcceptInvite(props: { onSignedIn: () => void }) {
  const [password, setPassword] = useState("");
  const [result, accept] = useMutation(ACCEPT);
  return (
    <main class="login" id="main">
      <h1>Join the dashboard</h1>
      <p>Choose a password to finish accepting your invitation.</p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const answer = await accept({ token: tokenOfAddress(), password });
          if (answer.data?.acceptInvitation) props.onSignedIn();
        }}
      >
        <Field label="Password" hint={PASSWORD_HINT} type="password" autoComplete="new-password" required minLength={10} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <Notice>{errorText(result.error)}</Notice>
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Set password and sign in
        </Button>
      </form>
    </main>
  );
}

export function ResetPassword(props: { onDone: () => void }) {
  const [password, setPassword] = useState("");
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
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void reset({ token: tokenOfAddress(), newPassword: password });
          }}
        >
          <Field label="New password" hint={PASSWORD_HINT} type="password" autoComplete="new-password" required minLength={10} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          <Notice>{errorText(result.error)}</Notice>
          <Button type="submit" variant="primary" disabled={result.fetching}>
            Set new password
          </Button>
        </form>
      )}
    </main>
  );
}
