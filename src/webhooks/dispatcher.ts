// The webhook worker. Each cycle turns new outbox events into deliveries (fan-out), then claims the
// deliveries that are due and sends them. Safe in N processes: fan-out and claims use
// FOR UPDATE SKIP LOCKED on PostgreSQL (SQLite has a single writer, and every claim is a conditional
// UPDATE), and a claim is a lease, so a delivery whose worker died is taken over once the lease runs
// out. The attempt is recorded after sending: a crash in between resends (at-least-once), never drops.
import type { Event, Prisma, WebhookDelivery, WebhookEndpoint } from "../generated/sqlite/client.ts";
import type { Deps } from "../context.ts";
import type { Tx } from "../db/client.ts";
import { postgresSchema } from "../db/client.ts";
import type { Logger } from "../shared/logger.ts";
import { signingSecrets, subscribedEvents } from "../modules/webhook-endpoints/webhook-endpoints.service.ts";
import { deliveryBody } from "./delivery-body.ts";
import { type WebhookSender, sendWebhookRequest } from "./http-sender.ts";
import { signatureHeaders } from "./signing.ts";
import { privateTargetsAllowed } from "./ssrf-guard.ts";

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

/** Some deliveries of a grouped update were recorded by another worker: redo the batch row by row. */
class TakenOverError extends Error {}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class WebhookDispatcher {
  private readonly send: WebhookSender;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  /** long enough to send (timeout) and record; after it another worker may take the delivery over */
  private readonly leaseMs: number;
  /** raw SQL names the tables with the schema the Prisma client was opened on */
  private readonly table: (name: string) => string;
  private readonly inFlight = new Set<Promise<void>>();
  /** deliveries this process is sending: a lease that ran out under them is not taken again here */
  private readonly inFlightIds = new Set<string>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeRequested = false;
  private wakeUp: (() => void) | null = null;
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
    const schema = deps.config.dialect === "postgresql" ? postgresSchema(deps.config.databaseUrl) : null;
    this.table = (name) => (schema ? `${quoted(schema)}.${quoted(name)}` : quoted(name));
  }

  /** One full cycle, waiting for every send it started: what tests call after moving the clock. */
  async runOnce(): Promise<CycleResult> {
    const fannedOut = await this.fanOut();
    const sends = await this.claimAndSend(this.batchSize);
    await Promise.all(sends);
    return { fannedOut, sent: sends.length };
  }

  /** Tells the worker an event was committed (or a delivery made due): it runs now instead of at the next poll. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stops claiming, then waits for the requests already sent to be recorded. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async runLoop(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        this.wakeRequested = false;
        const fannedOut = await this.fanOut();
        const capacity = this.maxInFlight - this.inFlight.size;
        const started = capacity > 0 ? (await this.claimAndSend(Math.min(capacity, this.batchSize))).length : 0;
        busy = fannedOut > 0 || started > 0;
      } catch (error) {
        this.deps.logger.error("webhook dispatcher cycle failed", { error });
      }
      if (this.running && !busy) await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.wakeRequested) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = null;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** Creates the deliveries of events not yet fanned out, and marks them, in one transaction. */
  private async fanOut(): Promise<number> {
    const { db, clock, ids } = this.deps;
    // A plain read first: an idle poll opens no transaction.
    if (!(await db.event.findFirst({ where: { fannedOutAt: null }, select: { seq: true } }))) return 0;
    return db.$transaction(async (tx) => {
      const events = await this.lockUnfannedEvents(tx);
      if (events.length === 0) return 0;
      const now = clock.now();
      const { count } = await tx.event.updateMany({
        where: { seq: { in: events.map((e) => e.seq) }, fannedOutAt: null },
        data: { fannedOutAt: now },
      });
      // Another SQLite process got there first: let the transaction roll back and try again later.
      if (count !== events.length) throw new Error("outbox events were fanned out concurrently");

      const scopes = [...new Map(events.map((e) => [`${e.organizationId} ${e.environment}`, e])).values()];
      const endpoints = await tx.webhookEndpoint.findMany({
        where: {
          enabled: true,
          deletedAt: null,
          OR: scopes.map((e) => ({ organizationId: e.organizationId, environment: e.environment })),
        },
      });
      const rows: Prisma.WebhookDeliveryCreateManyInput[] = [];
      for (const event of events) {
        for (const endpoint of endpoints) {
          if (endpoint.organizationId !== event.organizationId || endpoint.environment !== event.environment) continue;
          const kinds = subscribedEvents(endpoint);
          if (!kinds.includes("*") && !kinds.includes(event.type)) continue;
          rows.push({
            id: ids.newId("whd"),
            organizationId: event.organizationId,
            environment: event.environment,
            endpointId: endpoint.id,
            eventId: event.id,
            eventType: event.type,
            status: "pending",
            nextRetryAt: now,
            requestPayload: deliveryBody(event),
            createdAt: now,
            updatedAt: now,
          });
        }
      }
      if (rows.length > 0) await tx.webhookDelivery.createMany({ data: rows });
      return rows.length;
    });
  }

  private async lockUnfannedEvents(tx: Tx): Promise<Event[]> {
    if (this.deps.config.dialect === "postgresql") {
      const locked = await tx.$queryRawUnsafe<{ seq: number }[]>(
        `SELECT seq FROM ${this.table("Event")} WHERE "fannedOutAt" IS NULL ORDER BY seq LIMIT ${this.batchSize} FOR UPDATE SKIP LOCKED`,
      );
      if (locked.length === 0) return [];
      return tx.event.findMany({ where: { seq: { in: locked.map((r) => Number(r.seq)) } }, orderBy: { seq: "asc" } });
    }
    return tx.event.findMany({ where: { fannedOutAt: null }, orderBy: { seq: "asc" }, take: this.batchSize });
  }

  /** Leases up to `limit` due deliveries and starts sending them; the promises settle once recorded. */
  private async claimAndSend(limit: number): Promise<Promise<void>[]> {
    const ids = await this.claimDue(limit);
    if (ids.length === 0) return [];
    const fresh = ids.filter((id) => !this.inFlightIds.has(id));
    const deliveries = await this.deps.db.webhookDelivery.findMany({ where: { id: { in: fresh } }, include: { endpoint: true } });
    return deliveries.map((delivery) => {
      this.inFlightIds.add(delivery.id);
      const sending = this.deliver(delivery)
        .catch((error) => this.deps.logger.error("webhook delivery could not be recorded", { deliveryId: delivery.id, error }))
        .finally(() => {
          this.inFlight.delete(sending);
          this.inFlightIds.delete(delivery.id);
          this.wake();
        });
      this.inFlight.add(sending);
      return sending;
    });
  }

  /** Due: pending, retry time reached, and nobody's lease running (a lapsed lease is a worker that died). */
  private async claimDue(limit: number): Promise<string[]> {
    const { db, clock, config } = this.deps;
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    if (config.dialect === "postgresql") {
      const rows = await db.$queryRawUnsafe<{ id: string }[]>(
        `UPDATE ${this.table("WebhookDelivery")} SET "leaseUntil" = $1::timestamp
         WHERE id IN (
           SELECT id FROM ${this.table("WebhookDelivery")}
           WHERE status = 'pending' AND "nextRetryAt" <= $2::timestamp AND ("leaseUntil" IS NULL OR "leaseUntil" <= $2::timestamp)
           ORDER BY "nextRetryAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        leaseUntil.toISOString(),
        now.toISOString(),
      );
      return rows.map((r) => r.id);
    }
    // One conditional UPDATE: SQLite runs it atomically. Prisma stores SQLite dates as ISO text with
    // "+00:00", so values in that same shape compare correctly as strings.
    const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE ${this.table("WebhookDelivery")} SET "leaseUntil" = ?
       WHERE id IN (
         SELECT id FROM ${this.table("WebhookDelivery")}
         WHERE status = 'pending' AND "nextRetryAt" <= ? AND ("leaseUntil" IS NULL OR "leaseUntil" <= ?)
         ORDER BY "nextRetryAt" LIMIT ${limit})
       RETURNING id`,
      sqliteDate(leaseUntil),
      sqliteDate(now),
      sqliteDate(now),
    );
    return rows.map((r) => r.id);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { clock, config } = this.deps;
    const { endpoint } = delivery;
    if (!endpoint.enabled || endpoint.deletedAt) {
      await this.finishWithoutAttempt(delivery, endpoint.deletedAt ? "Endpoint was deleted" : "Endpoint is disabled");
      return;
    }
    const startedAt = clock.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const headers = signatureHeaders({
      deliveryId: delivery.id,
      eventType: delivery.eventType,
      body: delivery.requestPayload,
      secrets: signingSecrets(endpoint, startedAt),
      timestamp,
    });
    const began = performance.now();
    let status: number | null = null;
    let responseBody: string | null = null;
    let error: string | null = null;
    try {
      const response = await this.send({
        url: endpoint.url,
        headers,
        body: delivery.requestPayload,
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: privateTargetsAllowed(delivery.environment, config.webhookAllowPrivate),
      });
      status = response.status;
      responseBody = response.body;
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
    const { db, clock, config, logger } = this.deps;
    const finishedAt = clock.now();
    const delays = config.webhookRetryDelaysSeconds;
    const groups = new Map<string, { ids: string[]; attemptCount: number; data: Prisma.WebhookDeliveryUpdateManyMutationInput }>();
    const attempts: Prisma.WebhookAttemptCreateManyInput[] = [];
    const seen = new Set<string>();
    for (const { delivery, attempt } of batch) {
      if (seen.has(delivery.id)) continue;
      seen.add(delivery.id);
      const number = delivery.attemptCount + 1;
      const succeeded = attempt.error === null;
      const retryIn = succeeded || number > delays.length ? null : delays[number - 1]! * 1000;
      const status = succeeded ? "succeeded" : retryIn === null ? "failed" : "pending";
      const data = {
        status,
        attemptCount: number,
        nextRetryAt: retryIn === null ? null : new Date(finishedAt.getTime() + retryIn),
        responseCode: attempt.status,
        responseBody: attempt.responseBody,
        lastError: attempt.error,
        leaseUntil: null,
        updatedAt: finishedAt,
      };
      const key = grouped ? JSON.stringify([number, status, retryIn, attempt.status, attempt.responseBody, attempt.error]) : delivery.id;
      const group = groups.get(key) ?? { ids: [] as string[], attemptCount: delivery.attemptCount, data };
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
      });
      if (!succeeded) {
        logger.info("webhook attempt failed", { deliveryId: delivery.id, attempt: number, deliveryStatus: status, error: attempt.error });
      }
    }
    await db.$transaction(async (tx) => {
      const dropped = new Set<string>();
      for (const group of groups.values()) {
        const { count } = await tx.webhookDelivery.updateMany({
          where: { id: { in: group.ids }, attemptCount: group.attemptCount },
          data: group.data,
        });
        if (count === group.ids.length) continue;
        if (group.ids.length > 1) throw new TakenOverError();
        dropped.add(group.ids[0]!);
      }
      const recorded = attempts.filter((a) => !dropped.has(a.deliveryId));
      if (recorded.length > 0) await tx.webhookAttempt.createMany({ data: recorded });
    });
  }

  private async finishWithoutAttempt(delivery: ClaimedDelivery, reason: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.webhookDelivery.updateMany({
      where: { id: delivery.id, attemptCount: delivery.attemptCount },
      data: { status: "failed", nextRetryAt: null, lastError: reason, leaseUntil: null, updatedAt: now },
    });
  }
}

/**
 * Wraps the app's handler so every write request wakes the dispatcher when it is answered: its
 * events are committed by then, and their first attempt need not wait for the next poll.
 */
export const wakeAfterWrites =
  (handler: (request: Request) => Promise<Response>, dispatcher: WebhookDispatcher) =>
  async (request: Request): Promise<Response> => {
    const response = await handler(request);
    if (request.method !== "GET" && request.method !== "HEAD") dispatcher.wake();
    return response;
  };
