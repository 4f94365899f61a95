// Your account: the signed-in person's own password, two-factor sign-in and mail notices. The two-factor setup is
// also the only screen of a session whose organization requires it and who has none yet (app.tsx).
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Button, CopyButton, Field, Notice, Page } from "../../components/ui.tsx";
import { QrCode } from "../../components/qr.tsx";
import { saveFile } from "../download.ts";
import { useReauthentication } from "../components/reauthentication.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { type Session, useSession } from "../session.tsx";

const CHANGE_PASSWORD = graphql(`
  mutation ChangePassword($current: String!, $next: String!) { changePassword(currentPassword: $current, newPassword: $next) }
`);
const BEGIN = graphql(`mutation BeginTwoFactorSetup { beginTwoFactorSetup { secret uri } }`);
const CONFIRM = graphql(`mutation ConfirmTwoFactor($code: String!) { confirmTwoFactor(code: $code) }`);
const MAIL_NOTICES = graphql(`query MailNotices { viewer { mailNotices { paymentReceived invoicePaid webhookFailing } } }`);
const UPDATE_MAIL_NOTICES = graphql(`
  mutation UpdateMailNotices($input: MailNoticesInput!) { updateMailNotices(input: $input) { paymentReceived invoicePaid webhookFailing } }
`);
const DISABLE = graphql(`mutation DisableTwoFactor($password: String!, $code: String!) { disableTwoFactor(password: $password, code: $code) }`);

export function Account() {
  const session = useSession();
  return (
    <Page title="Your account">
      <p class="muted">
        Signed in as <strong>{session.viewer.user.email}</strong> ({session.viewer.user.role}).
      </p>
      <TwoFactor enabled={session.viewer.user.twoFactorEnabled} onChanged={session.refresh} />
      <MailNotices canMendWebhooks={session.viewer.user.role !== "viewer"} />
      <PasswordForm />
    </Page>
  );
}

type NoticeName = "paymentReceived" | "invoicePaid" | "webhookFailing";

const NOTICE_CHOICES: [NoticeName, string, string][] = [
  ["paymentReceived", "Payment received", "When a payment completes, in either environment."],
  ["invoicePaid", "Invoice paid", "When a customer pays an invoice."],
  ["webhookFailing", "Webhook endpoint failing", "When an endpoint has refused events for an hour: one mail per failure."],
];

/** Which notices this person gets by mail: each box saves as it is ticked, and shows what was saved. */
function MailNotices(props: { canMendWebhooks: boolean }) {
  const [current] = useQuery({ query: MAIL_NOTICES });
  const [saved, save] = useMutation(UPDATE_MAIL_NOTICES);
  // The mutation's answer is the newest truth; before any, the query's.
  const notices = saved.data?.updateMailNotices ?? current.data?.viewer.mailNotices;
  const choices = NOTICE_CHOICES.filter(([name]) => name !== "webhookFailing" || props.canMendWebhooks);
  return (
    <section class="panel" aria-labelledby="notices-heading">
      <h2 id="notices-heading">Email notices</h2>
      <p class="muted">Mail to {useSession().viewer.user.email}. Security notices to owners are always sent.</p>
      {notices && (
        <fieldset class="events notices" disabled={saved.fetching}>
          <legend>Send me a mail</legend>
          {choices.map(([name, label, hint]) => (
            <label key={name}>
              <input type="checkbox" checked={notices[name]} onChange={(e) => save({ input: { [name]: e.currentTarget.checked } })} /> {label}
              <span class="muted"> · {hint}</span>
            </label>
          ))}
        </fieldset>
      )}
      <Notice>{errorText(current.error ?? saved.error)}</Notice>
      {saved.data && !saved.error && <Notice kind="ok">Saved.</Notice>}
    </section>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [result, change] = useMutation(CHANGE_PASSWORD);
  const errors = formErrors(result.error, ["currentPassword", "newPassword"]);
  return (
    <form
      class="panel"
      aria-labelledby="password-heading"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await change({ current, next });
        if (answer.data) (setCurrent(""), setNext(""));
      }}
    >
      <h2 id="password-heading">Password</h2>
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        error={errors.of("currentPassword")}
        onInput={(e) => setCurrent(e.currentTarget.value)}
      />
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        hint="Your other sessions end when it changes."
        value={next}
        error={errors.of("newPassword")}
        onInput={(e) => setNext(e.currentTarget.value)}
      />
      <Notice>{errors.other}</Notice>
      {result.data && !result.error && <Notice kind="ok">Password changed. Your other sessions have ended.</Notice>}
      <Button type="submit" variant="primary" disabled={result.fetching}>
        Change password
      </Button>
    </form>
  );
}

/** The recovery codes as a file to keep: whose they are, what they are for, one a line. */
const recoveryCodesFile = (codes: string[], session: Session) =>
  [
    `Stellar Pay recovery codes for ${session.viewer.user.email} (${session.viewer.organization.name})`,
    `Made ${new Date().toISOString().slice(0, 10)}. Each signs you in once in place of your authenticator app's code.`,
    "",
    ...codes,
    "",
  ].join("\n");

/** Two-factor sign-in: set up with the app (QR code, then its code; the recovery codes shown once), or turned off. */
export function TwoFactor(props: { enabled: boolean; onChanged: () => void }) {
  const [setup, begin] = useMutation(BEGIN);
  const [confirmation, confirm] = useMutation(CONFIRM);
  const [code, setCode] = useState("");
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const session = useSession();
  const secret = setup.data?.beginTwoFactorSetup;
  const codeErrors = formErrors(confirmation.error, ["code"]);
  if (recoveryCodes) {
    return (
      <section class="panel" aria-labelledby="two-factor-heading">
        <h2 id="two-factor-heading">Two-factor sign-in is on</h2>
        <div class="secret" role="region" aria-label="Recovery codes">
          <p>
            <strong>Recovery codes</strong>: each signs you in once if you lose the app. Keep them somewhere safe now: they will not be shown
            again.
          </p>
          <ul class="recovery-codes">
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <p class="actions">
            <CopyButton value={recoveryCodes.join("\n")} label="recovery codes" />
            <Button aria-label="Download recovery codes" onClick={() => saveFile("stellar-pay-recovery-codes.txt", recoveryCodesFile(recoveryCodes, session), "text/plain")}>
              Download
            </Button>
          </p>
          <Button variant="primary" onClick={() => (setRecoveryCodes(null), props.onChanged())}>
            I have saved them
          </Button>
        </div>
      </section>
    );
  }
  if (props.enabled) return <DisableTwoFactor onChanged={props.onChanged} />;
  return (
    <section class="panel" aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      <p>Off. With it on, signing in asks for a code from an authenticator app as well as your password.</p>
      {!secret ? (
        <>
          <Notice>{errorText(setup.error)}</Notice>
          <Button variant="primary" disabled={setup.fetching} onClick={() => void begin({})}>
            Set up two-factor sign-in
          </Button>
        </>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await confirm({ code: code.trim() });
            if (answer.data) setRecoveryCodes(answer.data.confirmTwoFactor);
          }}
        >
          <p>Scan this code with your authenticator app, or type the key into it. Then enter the 6-digit code it shows.</p>
          <QrCode value={secret.uri} label="QR code for your authenticator app" />
          <p>
            Key: <code class="wrap">{secret.secret}</code>
          </p>
          <Field
            label="Code from the app"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
            value={code}
            error={codeErrors.of("code")}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <Notice>{codeErrors.other}</Notice>
          <Button type="submit" variant="primary" disabled={confirmation.fetching}>
            Turn on two-factor sign-in
          </Button>
        </form>
      )}
    </section>
  );
}

function DisableTwoFactor(props: { onChanged: () => void }) {
  const [result, disable] = useMutation(DISABLE);
  // The password and the code, as every sensitive change asks for them (two-factor is on: the code is asked).
  const reauthentication = useReauthentication();
  return (
    <form
      class="panel"
      aria-labelledby="two-factor-heading"
      onSubmit={async (e) => {
        e.preventDefault();
        const { password, code } = reauthentication.values;
        const answer = await disable({ password, code: code ?? "" });
        if (answer.data) props.onChanged();
      }}
    >
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      <p>On: signing in asks for a code from your authenticator app.</p>
      {reauthentication.fields(result.error)}
      <Notice>{reauthentication.otherError(result.error)}</Notice>
      <Button type="submit" variant="danger" disabled={result.fetching}>
        Turn off two-factor sign-in
      </Button>
    </form>
  );
}
