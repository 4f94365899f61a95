// Whether a caller's credential is still valid, for what outlives one request: an open subscription
// is authorized when it starts, then again for every delivery, and ends within about a second of its
// credential's revocation. Keys are revoked in the database (the admin CLI, from any process or
// host), so it is the database that is asked: one read per check, shared by every stream of the
// credential, and one read a second for all the credentials this process watches. A credential is
// an API key or a dashboard session (which also ends by logout, password change or expiry).
import type { Deps, Scope } from "../context.ts";
import { unrevokedApiKeyIds } from "../modules/api-keys/api-keys.store.ts";
import { liveSessionIds } from "../modules/users/dashboard-sessions.store.ts";
import { sessionLiveness } from "../modules/users/sessions.service.ts";
import type { Logger } from "../shared/logger.ts";

const CREDENTIAL_CHECK_INTERVAL_MS = 1000;

/** The id of the scope's credential: its API key's or its session's (distinct prefixes, key_ and ses_). */
const credentialOf = (scope: Scope) => (scope.principal.kind === "key" ? scope.principal.id : scope.principal.sessionId);

/** Of the credentials `ids`, those still valid. */
async function validCredentials(deps: Deps, ids: string[]): Promise<Set<string>> {
  const sessions = ids.filter((id) => id.startsWith("ses_"));
  const keys = ids.filter((id) => !id.startsWith("ses_"));
  const [validKeys, validSessions] = await Promise.all([
    keys.length ? unrevokedApiKeyIds(deps.db, keys) : new Set<string>(),
    sessions.length ? liveSessionIds(deps.db, sessions, sessionLiveness(deps.clock.now())) : new Set<string>(),
  ]);
  return new Set([...validKeys, ...validSessions]);
}

interface Check {
  /** a monotonic time (performance.now()): how fresh a check is is I/O timing, not domain time */
  startedAt: number;
  valid: Promise<Set<string>>;
}

export interface CredentialWatch {
  /** Whether the credential was valid at a moment after `since` (a performance.now() time). */
  stillValid(scope: Scope, since: number): Promise<boolean>;
  /** Calls `onRevoked` once when the credential is found revoked; returns what ends the watch. */
  watch(scope: Scope, onRevoked: () => void): () => void;
  stop(): void;
}

export function createCredentialWatch(deps: Deps & { logger: Logger }): CredentialWatch {
  const watchers = new Map<string, Set<() => void>>();
  const latest = new Map<string, Check>();
  let timer: NodeJS.Timeout | null = null;

  function check(ids: string[]): Check {
    const started: Check = { startedAt: performance.now(), valid: validCredentials(deps, ids) };
    for (const id of ids) latest.set(id, started);
    return started;
  }

  async function sweep() {
    if (!watchers.size) return;
    try {
      const valid = await check([...watchers.keys()]).valid;
      for (const [id, callbacks] of watchers) if (!valid.has(id)) for (const revoked of [...callbacks]) revoked();
    } catch (error) {
      // A failed read proves nothing: the streams stay, and the next sweep asks again.
      deps.logger.error("checking open streams' credentials failed", { error });
    }
  }

  /** Runs while anything is watched. */
  function schedule() {
    timer = setTimeout(async () => {
      await sweep();
      timer = null;
      if (watchers.size) schedule();
    }, CREDENTIAL_CHECK_INTERVAL_MS);
    timer.unref();
  }

  return {
    async stillValid(scope, since) {
      const id = credentialOf(scope);
      let last = latest.get(id);
      if (!last || last.startedAt < since) last = check([id]);
      return (await last.valid).has(id);
    },
    watch(scope, onRevoked) {
      const id = credentialOf(scope);
      let callbacks = watchers.get(id);
      if (!callbacks) watchers.set(id, (callbacks = new Set()));
      let called = false;
      const once = () => {
        if (called) return;
        called = true;
        onRevoked();
      };
      callbacks.add(once);
      if (!timer) schedule();
      return () => {
        callbacks.delete(once);
        if (callbacks.size) return;
        watchers.delete(id);
        latest.delete(id);
      };
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      watchers.clear();
    },
  };
}
