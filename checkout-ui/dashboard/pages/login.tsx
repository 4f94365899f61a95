// Sign in with email and password (the server sets an HttpOnly session cookie).
import { useMutation } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, useTabTitle } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";

const LOGIN = graphql(`
  mutation Login($email: String!, $password: String!, $code: String) {
    login(email: $email, password: $password, code: $code) { user { id } }
  }
`);

const REQUEST_RESET = graphql(`mutation RequestPasswordReset($email: String!) { requestPasswordReset(email: $email) }`);

/** The server's answer to a user with two-factor sign-in who sent no code (users.service.ts). */
const CODE_REQUIRED = /code from your authenticator app/;

export function Login(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [result, login] = useMutation(LOGIN);
  const error = errorText(result.error);
  const askCode = code !== "" || (error !== null && CODE_REQUIRED.test(error));
  const [forgot, setForgot] = useState(false);
  useTabTitle(forgot ? "Reset your password · Dashboard" : "Sign in · Dashboard");
  if (forgot) return <ForgotPassword email={email} onBack={() => setForgot(false)} />;
  return (
    <main class="login" id="main">
      <h1>Sign in to your dashboard</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const answer = await login({ email, password, code: code.trim() || null });
          if (answer.data?.login) props.onSignedIn();
        }}
      >
        <Field label="Email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {askCode && (
          <Field
            label="Authentication code"
            hint="From your authenticator app, or one of your recovery codes."
            autoComplete="one-time-code"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        )}
        <Notice>{error}</Notice>
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Sign in
        </Button>
      </form>
      <Button class="link" onClick={() => setForgot(true)}>
        Forgot password?
      </Button>
    </main>
  );
}

/** Asks for the email and says a mail is on its way: the same words whether or not it has an account. */
function ForgotPassword(props: { email: string; onBack: () => void }) {
  const [email, setEmail] = useState(props.email);
  const [result, request] = useMutation(REQUEST_RESET);
  return (
    <main class="login" id="main">
      <h1>Reset your password</h1>
      {result.data?.requestPasswordReset ? (
        <Notice kind="ok">If {email} has an account, a mail with a link to choose a new password is on its way. The link works once, for 1 hour.</Notice>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void request({ email });
          }}
        >
          <Field label="Email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <Notice>{errorText(result.error)}</Notice>
          <Button type="submit" variant="primary" disabled={result.fetching}>
            Send reset link
          </Button>
        </form>
      )}
      <Button class="link" onClick={props.onBack}>
        Back to sign in
      </Button>
    </main>
  );
}
