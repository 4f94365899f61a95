// A live screen's stream of the changes a change channel carries (change-channel.ts): the rows of the
// caller's scope, read again as they are now, until the credential is revoked.
import type { Deps, Scope } from "../../context.ts";
import { type CredentialWatch, createCredentialWatch } from "../../gate/credentials.ts";
import { unauthorized } from "../../errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ChangeChannel, ChangedRow } from "./change-channel.ts";

/** What a screen's stream hands out last when its credential was revoked: the field answers UNAUTHENTICATED. */
export const CREDENTIAL_REVOKED = Symbol("credential revoked");

/**
 * The resolver of every live screen's subscription field (payments, refunds, deliveries, mail): a
 * stream that ended for a revoked credential answers UNAUTHENTICATED, anything else as it is.
 */
export function unlessRevoked<T>(value: T | typeof CREDENTIAL_REVOKED): T {
  if (value === CREDENTIAL_REVOKED) throw unauthorized();
  return value;
}

// One credential watch per database client, shared by every open stream (it reads once a second while any is open).
const watches = new WeakMap<object, CredentialWatch>();

/** The credential watch of `deps`' database client, shared by every open dashboard stream. */
export function sharedCredentialWatch(deps: Deps & { logger: Logger }): CredentialWatch {
  const credentials = watches.get(deps.db) ?? createCredentialWatch(deps);
  watches.set(deps.db, credentials);
  return credentials;
}

/**
 * The rows of `scope` that `wanted` takes, each read again (`read`, null if gone or not the
 * caller's) as it is after each change. Changes that come while rows are read are taken together,
 * once per row. Ends with CREDENTIAL_REVOKED within about a second of the credential's revocation.
 */
export async function watchChanges<K extends string, T>(
  deps: Deps & { logger: Logger },
  scope: Scope,
  channel: ChangeChannel<K>,
  wanted: (row: ChangedRow<K>) => boolean,
  read: (id: string) => Promise<T | null>,
): Promise<AsyncIterableIterator<T | typeof CREDENTIAL_REVOKED>> {
  const credentials = sharedCredentialWatch(deps);
  const changed = new Set<string>();
  let waiting: (() => void) | null = null;
  let revoked = false;
  let closed = false;
  const wake = () => {
    waiting?.();
    waiting = null;
  };
  // Listening before the stream starts: nothing committed after this is missed.
  const unlisten = await channel.listen(deps, (rows) => {
    for (const row of rows) {
      if (row.organizationId === scope.organizationId && row.environment === scope.environment && wanted(row)) changed.add(row.id);
    }
    if (changed.size) wake();
  });
  const unwatch = credentials.watch(scope, () => {
    revoked = true;
    wake();
  });
  const close = () => {
    if (closed) return;
    closed = true;
    unlisten();
    unwatch();
    wake();
  };
  const ready: T[] = [];

  async function next(): Promise<IteratorResult<T | typeof CREDENTIAL_REVOKED>> {
    while (!closed) {
      if (revoked) {
        close();
        return { value: CREDENTIAL_REVOKED, done: false };
      }
      if (ready.length) return { value: ready.shift()!, done: false };
      if (changed.size === 0) {
        await new Promise<void>((resolve) => (waiting = resolve));
        continue;
      }
      const ids = [...changed];
      changed.clear();
      const since = performance.now();
      const rows = await Promise.all(ids.map(read));
      if (!(await credentials.stillValid(scope, since))) revoked = true;
      else for (const row of rows) if (row !== null) ready.push(row);
    }
    return { value: undefined, done: true };
  }

  const iterator: AsyncIterableIterator<T | typeof CREDENTIAL_REVOKED> = {
    next,
    return: () => {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
