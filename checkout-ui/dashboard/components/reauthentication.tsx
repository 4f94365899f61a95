// The fields a sensitive change asks for again (a role, a settlement wallet, a live key): the
// viewer's password, and the authenticator code when their two-factor sign-in is on.
import { useState } from "preact/hooks";
import { Field } from "../../components/ui.tsx";
import { useSession } from "../session.tsx";

/**
 * `labels`: where a screen asks for it more than once (each form its own fields), what sets each
 * pair apart; by default "Your password" and "Authentication code".
 */
export function useReauthentication(labels = { password: "Your password", code: "Authentication code" }) {
  const session = useSession();
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const fields = (
    <>
      <Field label={labels.password} type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      {session.viewer.user.twoFactorEnabled && (
        <Field label={labels.code} autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
      )}
    </>
  );
  return {
    fields,
    /** the mutation's password and code arguments */
    values: { password, code: code.trim() || null },
    reset: () => (setPassword(""), setCode("")),
  };
}
