// Whether an endpoint is failing, and the one mail of a failure that lasts. An episode starts at an
// endpoint's first failed attempt after a success (or ever), and ends at its next success: the webhook
// worker records both with its attempts (recordEndpointHealth). The "Webhook endpoint failing" notice
// is not tied to an attempt (the next may be hours away on the retry schedule): a periodic watch
// (createFailingEndpointWatch) looks every FAILING_WATCH_INTERVAL_MS for episodes an hour old and not
// told, queues the notice to the users who chose it and marks the episode told in the same
// transaction (a conditional update): one mail per episode on any number of processes, and an episode
// that came due while every process was down is told at the first look after a start.
import type { WebhookEndpoint } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PeriodicTask, periodicTask } from "../../shared/periodic-task.ts";
import { keyOf, loadNoticeAudiences, noticeRecipients, webhookFailingMail } from "../mail/mail-notices.ts";
import { queueMailsStatement } from "../mail/mail.service.ts";
import { claimFailingNotice, endFailingEpisodes, endpointsFailingUntold, lastDeliveryError, startFailingEpisodes } from "./webhook-endpoints.store.ts";

/** How long an endpoint fails before its people are told. */
export const FAILING_NOTICE_AFTER_MS = 60 * 60 * 1000;
/** How often the watch looks: a notice goes out at most this long after its hour. */
export const FAILING_WATCH_INTERVAL_MS = 30_000;
/** Episodes told per look; a full look is followed by another at once. */
const PER_LOOK = 50;

export interface AttemptOutcome {
  /** the endpoint as read when its delivery was claimed */
  endpoint: WebhookEndpoint;
  succeeded: boolean;
}

class AlreadyTold extends Error {}

/** Records what a batch of recorded attempts says of their endpoints' health: episodes that start or end. */
export async function recordEndpointHealth(deps: Pick<Deps, "db">, outcomes: AttemptOutcome[], at: Date): Promise<void> {
  const succeeded = new Map<string, { endpoint: WebhookEndpoint; succeeded: boolean }>();
  for (const outcome of outcomes) {
    // One success in the batch is an endpoint that works.
    succeeded.set(outcome.endpoint.id, { endpoint: outcome.endpoint, succeeded: (succeeded.get(outcome.endpoint.id)?.succeeded ?? false) || outcome.succeeded });
  }
  const all = [...succeeded.values()];
  // The endpoint as claimed says which writes can change anything: most batches need none.
  const recovered = all.filter((e) => e.succeeded && e.endpoint.failingSince).map((e) => e.endpoint.id);
  const starting = all.filter((e) => !e.succeeded && !e.endpoint.failingSince).map((e) => e.endpoint.id);
  const sql = typedSql(deps.db);
  const changes = [...(recovered.length ? [endFailingEpisodes(sql, recovered)] : []), ...(starting.length ? [startFailingEpisodes(sql, starting, at)] : [])];
  if (changes.length) await sql.direct.batch(changes);
}

/** Queues the notice of every episode an hour old and not told yet; the number of episodes looked at. */
export async function tellFailingEndpoints(deps: Pick<Deps, "db" | "clock" | "ids" | "config">): Promise<number> {
  const now = deps.clock.now();
  const failingBefore = new Date(now.getTime() - FAILING_NOTICE_AFTER_MS);
  const due = await endpointsFailingUntold(deps.db, failingBefore, PER_LOOK);
  if (due.length === 0) return 0;
  const sql = typedSql(deps.db);
  const audiences = await loadNoticeAudiences(deps.db, due);
  for (const endpoint of due) {
    const lastError = await lastDeliveryError(deps.db, endpoint);
    const audience = audiences.get(keyOf(endpoint))!;
    const mails = noticeRecipients(audience, "webhook_failing").map((to) => ({
      scope: endpoint,
      mail: webhookFailingMail(deps, endpoint, { since: endpoint.failingSince!, lastError }, audience, to),
    }));
    try {
      await sql.direct.batch([claimFailingNotice(sql, endpoint.id, failingBefore, now, () => new AlreadyTold()), ...(mails.length ? [queueMailsStatement(deps, mails)] : [])]);
    } catch (caught) {
      // Another process told this episode first (or it ended meanwhile): nothing to send.
      if (!(caught instanceof AlreadyTold)) throw caught;
    }
  }
  return due.length;
}

export interface FailingEndpointWatch extends PeriodicTask {
  /** Looks now: what tests call after moving the clock. The number of episodes looked at. */
  runOnce(): Promise<number>;
}

/** The periodic look for episodes that reached their hour (started by app.start, as the other workers). */
export function createFailingEndpointWatch(deps: Pick<Deps, "db" | "clock" | "ids" | "config"> & { logger: Logger }, options: { intervalMs?: number } = {}): FailingEndpointWatch {
  const runOnce = () => tellFailingEndpoints(deps);
  const loop = periodicTask(runOnce, {
    intervalMs: options.intervalMs ?? FAILING_WATCH_INTERVAL_MS,
    onError: (error) => deps.logger.error("failing endpoint watch failed", { error }),
    moreWaiting: (looked) => looked >= PER_LOOK,
  });
  return { ...loop, runOnce };
}
