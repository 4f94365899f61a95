// The webhook worker. Each cycle turns new outbox events into deliveries (fan-out), then claims the
// deliveries that are due and sends them. Safe in N processes: fan-out and claims use
// FOR UPDATE SKIP LOCKED on PostgreSQL (SQLite has a single writer, and every claim is a conditional
// UPDATE), and a claim is a lease, so a delivery whose worker died is taken over once the lease runs
// out. The attempt is recorded after sending: a crash in between resends (at-least-once), never drops.
//
// Every API write wakes it, so it must cost the API little: its database work is the typed prepared
// statements of the events, endpoint and delivery stores, not Prisma; a cycle with nothing to do is one read; fan-out and claim are one
// batch, and recording results another, whatever the number of rows (they travel as one parameter);
// and wakes that come while a cycle runs make one more cycle, not one each.
import type { Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../generated/sqlite/client.ts";
import type { Deps } from "../context.ts";
import { typedSql } from "../db/client.ts";
import type { BatchStep, Row, Statement } from "../db/direct-sql.ts";
import type { TypedSql } from "../db/typed-sql.ts";
import type { Logger } from "../shared/logger.ts";
import { type PeriodicTask, periodicTask } from "../shared/periodic-task.ts";
import { takesEvent } from "../modules/events/event-kinds.ts";
import { eventsToFanOutRows, eventsToFanOutStatement, markFannedOutStatement } from "../modules/events/events.store.ts";
import {
  type DeliveryResult,
  type NewDelivery,
  claimDueDeliveriesStatement,
  claimedDeliveryRows,
  failDeliveryWithoutAttempt,
  insertAttemptsStatement,
  insertDeliveriesStatement,
  recordResultStatement,
  webhookWorkWaiting,
} from "../modules/webhook-deliveries/webhook-deliveries.store.ts";
import { recordEndpointHealth } from "../modules/webhook-endpoints/endpoint-health.ts";
import { isLive, resealWebhookSecrets, signingSecrets, subscribedEvents } from "../modules/webhook-endpoints/webhook-endpoints.service.ts";
import { endpointRows, endpointsByIdStatement, liveEndpointsOfStatement } from "../modules/webhook-endpoints/webhook-endpoints.store.ts";
import { deliveryChanges } from "../modules/webhook-deliveries/delivery-changes.ts";
import { deliveryBody } from "./delivery-body.ts";
import { type WebhookSender, sendWebhookRequest } from "./http-sender.ts";
import { type SecretBox, secretBoxOf } from "./secret-box.ts";
import { signatureHeaders } from "./signing.ts";

export interface DispatcherDeps extends Deps {
  logger: Logger;
  /** how requests leave the process; the real HTTP sender unless a test gives another */
  send?: WebhookSender;
}

export interface DispatcherOptions {
  /** idle poll interval; wake() short-cuts it when an event was just committed */
  pollMs?: number;
  /** events fanned out, and deliveries claimed, per cycle */
  batchSize?: number;
  /** deliveries being sent at once by this process */
  maxInFlight?: number;
}

export interface CycleResult {
  fannedOut: number;
  sent: number;
}

type ClaimedDelivery = WebhookDelivery & { endpoint: WebhookEndpoint };

interface AttemptResult {
  startedAt: Date;
  durationMs: number;
  status: number | null;
  responseBody: string | null;
  error: string | null;
}

interface QueuedRecord {
  delivery: ClaimedDelivery;
  attempt: AttemptResult;
  done(error?: unknown): void;
}

/** How long a result waits for others to be recorded with it; sending is never delayed by it. */
const RECORD_LINGER_MS = 20;

/**
 * An attempt asked for by hand (Retry now, Resend) that the schedule would not have made then: one
 * due by the schedule as well counts as the schedule's.
 */
function isManualAttempt(delivery: WebhookDelivery, startedAt: Date): boolean {
  if (delivery.manualRetryAt === null) return false;
  const scheduledDue = delivery.status === "pending" && delivery.nextRetryAt !== null && delivery.nextRetryAt <= startedAt;
  return !scheduledDue;
}

/** Some deliveries of a grouped update were recorded by another worker: redo the batch row by row. */
class TakenOverError extends Error {}


export class WebhookDispatcher {
  private readonly send: WebhookSender;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  /** long enough to send (timeout) and record; after it another worker may take the delivery over */
  private readonly leaseMs: number;
  private readonly sql: TypedSql;
  /** opens the endpoints' stored secrets; made here so a missing key file is made (or found unreadable) at startup */
  private readonly secrets: SecretBox;
  private readonly inFlight = new Set<Promise<void>>();
  /** deliveries this process is sending: a lease that ran out under them is not taken again here */
  private readonly inFlightIds = new Set<string>();
  /** a burst of wakes during a cycle costs one more cycle, not one each (periodic-task.ts) */
  private readonly loop: PeriodicTask;
  private resealed = false;
  /** attempt results waiting to be written: recorded together, one transaction per batch */
  private readonly recordQueue: QueuedRecord[] = [];
  private recording: Promise<void> | null = null;

  constructor(
    private readonly deps: DispatcherDeps,
    options: DispatcherOptions = {},
  ) {
    this.send = deps.send ?? sendWebhookRequest;
    this.pollMs = options.pollMs ?? 200;
    this.batchSize = options.batchSize ?? 200;
    this.maxInFlight = options.maxInFlight ?? 256;
    this.leaseMs = deps.config.webhookTimeoutMs + 30_000;
    this.sql = typedSql(deps.db);
    this.secrets = secretBoxOf(deps.config);
    // A cycle that took as much as it could has probably left more behind: go on at once.
    this.loop = periodicTask(() => this.loopCycle(), {
      intervalMs: this.pollMs,
      onError: (error) => deps.logger.error("webhook dispatcher cycle failed", { error }),
      moreWaiting: (full) => full,
    });
  }

  /** One full cycle, waiting for every send it started: what tests call after moving the clock. */
  async runOnce(): Promise<CycleResult> {
    const { deliveries, sends } = await this.cycle(this.batchSize);
    await Promise.all(sends);
    return { fannedOut: deliveries, sent: sends.length };
  }

  /** Tells the worker an event was committed (or a delivery made due): it runs now instead of at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming, then waits for the requests already sent to be recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.inFlight);
  }

  /** The loop's cycle, as many deliveries as there is room for; the first re-encrypts the stored secrets. */
  private async loopCycle(): Promise<boolean> {
    if (!this.resealed) {
      this.resealed = true;
      await this.resealSecrets();
    }
    return (await this.cycle(this.maxInFlight - this.inFlight.size)).full;
  }

  /**
   * Secrets stored in plain text by an older version, or encrypted with a key that is no longer the
   * first, are encrypted with the current key: after a key rotation every process does it on start.
   */
  private async resealSecrets(): Promise<void> {
    const { config, logger } = this.deps;
    if (config.dialect === "postgresql" && config.webhookSecretKeys.length === 0) {
      logger.warn("WEBHOOK_SECRET_KEYS is not set: webhook secrets are encrypted with a key file that every host must share", {
        keyFile: config.webhookSecretKeyFile,
      });
    }
    try {
      const result = await resealWebhookSecrets(this.deps);
      if (result.resealed > 0) logger.info("webhook secrets encrypted with the current key", { count: result.resealed });
      if (result.unreadable > 0) {
        logger.error("webhook secrets are encrypted with keys that are not configured: their deliveries fail until those keys are", {
          count: result.unreadable,
          keyIds: result.missingKeyIds,
        });
      }
    } catch (error) {
      logger.error("webhook secrets could not be re-encrypted", { error });
    }
  }

  /**
   * One read says whether there is anything to do. If there is, fan-out and claim are one batch:
   * one transaction (on SQLite one commit, whose sync is most of a write's cost), and the deliveries
   * just created are claimed with it. `full`: a step took as much as it may, so more is probably waiting.
   */
  private async cycle(capacity: number): Promise<{ deliveries: number; sends: Promise<void>[]; full: boolean }> {
    const now = this.deps.clock.now();
    const work = await webhookWorkWaiting(this.sql, now);
    const events = work.events;
    const limit = Math.min(capacity, this.batchSize);
    const claims = limit > 0 && (events || work.due);
    if (!events && !claims) return { deliveries: 0, sends: [], full: false };

    const fanOut = events ? this.fanOutSteps(now) : null;
    const claim = claims ? this.claimSteps(now, limit) : null;
    const results = await this.sql.direct.batch([...(fanOut?.steps ?? []), ...(claim?.steps ?? [])]);
    const fanned = fanOut?.result() ?? { events: 0, deliveries: 0 };
    const claimed = claim?.result(results.at(-1)!.rows) ?? [];
    const sends = claimed.filter((delivery) => !this.inFlightIds.has(delivery.id)).map((delivery) => this.startDelivery(delivery));
    return { deliveries: fanned.deliveries, sends, full: fanned.events === this.batchSize || (limit > 0 && claimed.length === limit) };
  }

  /** Creates the deliveries of events not yet fanned out, and marks the events. */
  private fanOutSteps(now: Date) {
    const { ids } = this.deps;
    let events: Event[] = [];
    let deliveries: NewDelivery[] = [];
    const steps: BatchStep[] = [
      eventsToFanOutStatement(this.sql, this.batchSize),
      (before) => {
        events = eventsToFanOutRows(this.sql, before.at(-1)!.rows);
        // Another SQLite process got there first: roll back and try again later.
        return markFannedOutStatement(this.sql, events, now, () => new Error("outbox events were fanned out concurrently"));
      },
      () => liveEndpointsOfStatement(this.sql, [...new Set(events.map((e) => e.organizationId))]),
      (before) => {
        const endpoints = endpointRows(this.sql, before.at(-1)!.rows);
        deliveries = [];
        for (const event of events) {
          for (const endpoint of endpoints) {
            if (endpoint.organizationId !== event.organizationId || endpoint.environment !== event.environment) continue;
            if (!takesEvent(subscribedEvents(endpoint), event.type)) continue;
            deliveries.push({
              id: ids.newId("whd"),
              organizationId: event.organizationId,
              environment: event.environment,
              endpointId: endpoint.id,
              eventId: event.id,
              eventType: event.type,
              requestPayload: deliveryBody(event),
              createdAt: now,
            });
          }
        }
        return insertDeliveriesStatement(this.sql, deliveries);
      },
    ];
    return { steps, result: () => ({ events: events.length, deliveries: deliveries.length }) };
  }

  /** Leases up to `limit` due deliveries (webhook-deliveries.store.ts `dueForDelivery`), with their endpoints as they are now. */
  private claimSteps(now: Date, limit: number) {
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    let claimed: WebhookDelivery[] = [];
    const steps: BatchStep[] = [
      claimDueDeliveriesStatement(this.sql, now, leaseUntil, limit),
      (before) => {
        claimed = claimedDeliveryRows(this.sql, before.at(-1)!.rows);
        return endpointsByIdStatement(this.sql, [...new Set(claimed.map((d) => d.endpointId))]);
      },
    ];
    /** `rows`: the rows of the last step */
    const result = (rows: Row[]): ClaimedDelivery[] => {
      const endpoints = new Map(endpointRows(this.sql, rows).map((endpoint) => [endpoint.id, endpoint]));
      return claimed.map((delivery) => ({ ...delivery, endpoint: endpoints.get(delivery.endpointId)! }));
    };
    return { steps, result };
  }

  private startDelivery(delivery: ClaimedDelivery): Promise<void> {
    this.inFlightIds.add(delivery.id);
    const sending = this.deliver(delivery)
      .catch((error) => this.deps.logger.error("webhook delivery could not be recorded", { deliveryId: delivery.id, error }))
      .finally(() => {
        // Only a worker that had no room left has deliveries waiting for this one to end.
        const wasFull = this.inFlight.size >= this.maxInFlight;
        this.inFlight.delete(sending);
        this.inFlightIds.delete(delivery.id);
        if (wasFull) this.wake();
      });
    this.inFlight.add(sending);
    return sending;
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { clock, config } = this.deps;
    const { endpoint } = delivery;
    if (!isLive(endpoint)) {
      await this.finishWithoutAttempt(delivery, endpoint.deletedAt ? "Endpoint was deleted" : "Endpoint is disabled");
      return;
    }
    const startedAt = clock.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const began = performance.now();
    let status: number | null = null;
    let responseBody: string | null = null;
    let error: string | null = null;
    try {
      const headers = signatureHeaders({
        deliveryId: delivery.id,
        eventType: delivery.eventType,
        body: delivery.requestPayload,
        secrets: signingSecrets(this.secrets, endpoint, startedAt),
        timestamp,
      });
      const response = await this.send({
        url: endpoint.url,
        headers,
        body: delivery.requestPayload,
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivate,
      });
      status = response.status;
      // A NUL byte becomes U+FFFD, as undecodable bytes already do: PostgreSQL text cannot hold it.
      responseBody = response.body?.replaceAll("\0", "\uFFFD") ?? null;
      if (status < 200 || status > 299) error = `Endpoint answered HTTP ${status}`;
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const attempt = { startedAt, durationMs: Math.round(performance.now() - began), status, responseBody, error };
    await new Promise<void>((resolve, reject) => {
      this.recordQueue.push({ delivery, attempt, done: (failure) => (failure ? reject(failure) : resolve()) });
      this.recording ??= this.drainRecordQueue();
    });
  }

  /**
   * Group commit: results are written together, one transaction per batch rather than one per
   * attempt. The first result of a batch waits RECORD_LINGER_MS for the others of its burst.
   */
  private async drainRecordQueue(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, RECORD_LINGER_MS));
    while (this.recordQueue.length > 0) {
      const batch = this.recordQueue.splice(0);
      try {
        await this.recordAttempts(batch);
        for (const item of batch) item.done();
      } catch (error) {
        for (const item of batch) item.done(error);
      }
    }
    this.recording = null;
  }

  /**
   * Writes a batch of attempt results. Only the worker that sent attempt `number` records it: if a
   * worker that took over a lapsed lease already recorded it, this result is dropped. Results that
   * would write the same columns (the usual case: many 200s) go in one conditional UPDATE; if it
   * touches fewer rows than expected, the batch is redone row by row to find the ones taken over.
   */
  private async recordAttempts(batch: QueuedRecord[]): Promise<void> {
    try {
      await this.writeAttempts(batch, true);
    } catch (error) {
      if (!(error instanceof TakenOverError)) throw error;
      await this.writeAttempts(batch, false);
    }
  }

  private async writeAttempts(batch: QueuedRecord[], grouped: boolean): Promise<void> {
    const { clock, config, logger } = this.deps;
    const finishedAt = clock.now();
    const delays = config.webhookRetryDelaysSeconds;
    const groups = new Map<string, { ids: string[]; attemptsBefore: number; result: DeliveryResult }>();
    const attempts: WebhookAttempt[] = [];
    const seen = new Set<string>();
    for (const { delivery, attempt } of batch) {
      if (seen.has(delivery.id)) continue;
      seen.add(delivery.id);
      const number = delivery.attemptCount + 1;
      const succeeded = attempt.error === null;
      const manual = isManualAttempt(delivery, attempt.startedAt);
      const manualAttempts = delivery.manualAttempts + (manual ? 1 : 0);
      // The schedule counts automatic attempts only: a manual one leaves its next time and count as they were.
      const automaticNumber = number - manualAttempts;
      const retryIn = succeeded || manual || automaticNumber > delays.length ? null : delays[automaticNumber - 1]! * 1000;
      const nextRetryAt = succeeded ? null : manual ? delivery.nextRetryAt : retryIn === null ? null : new Date(finishedAt.getTime() + retryIn);
      const status = succeeded ? "succeeded" : nextRetryAt === null ? "failed" : "pending";
      const key = grouped
        ? JSON.stringify([number, manualAttempts, status, nextRetryAt, attempt.status, attempt.responseBody, attempt.error])
        : delivery.id;
      const group = groups.get(key) ?? {
        ids: [],
        attemptsBefore: delivery.attemptCount,
        result: {
          status,
          attemptCount: number,
          manualAttempts,
          nextRetryAt,
          responseCode: attempt.status,
          responseBody: attempt.responseBody,
          lastError: attempt.error,
          updatedAt: finishedAt,
        },
      };
      group.ids.push(delivery.id);
      groups.set(key, group);
      attempts.push({
        deliveryId: delivery.id,
        number,
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        responseCode: attempt.status,
        responseBody: attempt.responseBody,
        error: attempt.error,
        manual,
      });
      if (!succeeded) {
        logger.info("webhook attempt failed", { deliveryId: delivery.id, attempt: number, manual, deliveryStatus: status, error: attempt.error });
      }
    }
    const updates = [...groups.values()];
    const steps: BatchStep[] = updates.map(
      (group): Statement =>
        recordResultStatement(
          this.sql,
          group.ids,
          group.attemptsBefore,
          group.result,
          group.ids.length > 1 ? { expect: { changes: group.ids.length, error: () => new TakenOverError() } } : undefined,
        ),
    );
    steps.push((results) => {
      // A lone result whose update touched nothing was recorded by the worker that took it over.
      const dropped = new Set(updates.filter((_, i) => results[i]!.changes === 0).flatMap((group) => group.ids));
      return insertAttemptsStatement(this.sql, attempts.filter((a) => !dropped.has(a.deliveryId)));
    });
    // Other processes' open delivery logs hear of it when the batch commits.
    steps.push(...deliveryChanges.notices(this.deps, batch.map(({ delivery }) => delivery)));
    await this.sql.direct.batch(steps);
    // Committed: open delivery logs show the attempts now (delivery-changes.ts).
    deliveryChanges.announce(this.deps.db, batch.map(({ delivery }) => delivery));
    // After the attempts: a crash in between only delays a failing episode's start or end to the next attempt.
    await recordEndpointHealth(
      this.deps,
      batch.map(({ delivery, attempt }) => ({ endpoint: delivery.endpoint, succeeded: attempt.error === null })),
      finishedAt,
    );
  }

  private async finishWithoutAttempt(delivery: ClaimedDelivery, reason: string): Promise<void> {
    await failDeliveryWithoutAttempt(this.sql, delivery, reason, this.deps.clock.now());
    deliveryChanges.announce(this.deps.db, [delivery]);
  }
}
