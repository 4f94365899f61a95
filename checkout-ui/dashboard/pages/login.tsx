// Sign in with email and password (the server sets an HttpOnly session cookie).
import { useMutation } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, Field, Notice, useTabTitle } from "../../components/ui.tsx";
import { errorCode, errorText, formErrors, graphql } from "../graphql.ts";

const LOGIN = graphql(`
  mutation Login($email: String!, $password: String!, $code: String) {
    login(email: $email, password: $password, code: $code) { user { id } }
  }
`);

const REQUEST_RESET = graphql(`mutation RequestPasswordReset($email: String!) { requestPasswordReset(email: $email) }`);

/**
 * Signing in is one step, or two with two-factor sign-in on: the server answers a right password
 * without a code by naming the code's field (extensions.field "code", users.service.ts), and the page
 * then asks for the code as a step of its own, not as an error.
 */
export function Login(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [codeStep, setCodeStep] = useState(false);
  const [result, login] = useMutation(LOGIN);
  const [forgot, setForgot] = useState(false);
  useTabTitle(forgot ? "Reset your password · Dashboard" : codeStep ? "Two-step verification · Dashboard" : "Sign in · Dashboard");
  const errors = formErrors(result.error, ["code"]);
  if (forgot) return <ForgotPassword email={email} onBack={() => setForgot(false)} />;
  const signIn = async (withCode: string | null) => {
    const answer = await login({ email, password, code: withCode });
    if (answer.data?.login) return props.onSignedIn();
    // Asked for the code (or given a wrong one): the code step, its error beside the field.
    if (errorCode(answer.error) === "UNAUTHENTICATED" && formErrors(answer.error, ["code"]).of("code")) setCodeStep(true);
  };
  if (codeStep) {
    // The first answer (code required) is the reason for this step, not an error to show.
    const wrongCode = code !== "" && result.operation?.variables.code ? errors.of("code") : null;
    return (
      <main class="login" id="main">
        <h1>Two-step verification</h1>
        <p>Enter the 6-digit code from your authenticator app for {email}.</p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void signIn(code.trim() || null);
          }}
        >
          <Field
            label="Authentication code"
            hint="Lost your phone? Enter one of your recovery codes instead."
            autoComplete="one-time-code"
            autoFocus
            required
            value={code}
            error={wrongCode}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <Notice>{errors.other}</Notice>
          <Button type="submit" variant="primary" disabled={result.fetching}>
            Verify and sign in
          </Button>
        </form>
        <Button class="link" onClick={() => (setCodeStep(false), setCode(""), setPassword(""))}>
          Back to sign in
        </Button>
      </main>
    );
  }
  return (
    <main class="login" id="main">
      <h1>Sign in to your dashboard</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn(null);
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
        <Notice>{result.operation?.variables.code == null && errors.of("code") ? null : errorText(result.error)}</Notice>
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
          <Field
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            error={formErrors(result.error, ["email"]).of("email")}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <Notice>{formErrors(result.error, ["email"]).other}</Notice>
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
