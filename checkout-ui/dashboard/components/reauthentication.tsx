// The fields a sensitive change asks for again (a role, a settlement wallet, a live key): the
// viewer's password, and the authenticator code when their two-factor sign-in is on.
import { useState } from "preact/hooks";
import { Field } from "../../components/ui.tsx";
import { formErrors } from "../graphql.ts";
import { useSession } from "../session.tsx";

/**
 * `labels`: where a screen asks for it more than once (each form its own fields), what sets each
 * pair apart; by default "Your password" and "Authentication code".
 */
export function useReauthentication(labels = { password: "Your password", code: "Authentication code" }) {
  const session = useSession();
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  return {
    /** the fields, a wrong password or code said beside its own (the server names it: extensions.field) */
    fields: (error?: Parameters<typeof formErrors>[0]) => {
      const errors = formErrors(error, REAUTHENTICATION_FIELDS);
      return (
        <>
          <Field
            label={labels.password}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            error={errors.of("password")}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          {session.viewer.user.twoFactorEnabled && (
            <Field label={labels.code} autoComplete="one-time-code" required value={code} error={errors.of("code")} onInput={(e) => setCode(e.currentTarget.value)} />
          )}
        </>
      );
    },
    /** what of `error` is about neither these fields nor the form's own (`shownBeside`), for the form's notice */
    otherError: (error: Parameters<typeof formErrors>[0], shownBeside: readonly string[] = []) => formErrors(error, [...REAUTHENTICATION_FIELDS, ...shownBeside]).other,
    /** the mutation's password and code arguments */
    values: { password, code: code.trim() || null },
    reset: () => (setPassword(""), setCode("")),
  };
}

const REAUTHENTICATION_FIELDS = ["password", "code"] as const;
