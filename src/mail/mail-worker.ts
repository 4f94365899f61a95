// The mail worker: sends the outbox's due messages (MailMessage, written in the transaction of the
// change that caused them) and records each attempt. Safe in N processes: a claim is a lease (a
// conditional UPDATE; FOR UPDATE SKIP LOCKED on PostgreSQL), so a message whose worker died is taken
// over once the lease runs out. The attempt is recorded after sending: a crash in between sends the
// message again (at least once, the same Message-ID), never drops it. A failed attempt is retried
// after MAIL_RETRY_DELAYS_S; after the last the message is `failed`, and stays listed.
import type { MailMessage } from "../generated/sqlite/client.ts";
import type { AppDeps } from "../context.ts";
import { mailBodiesOf } from "../modules/mail/mail.service.ts";
import { mailChanges } from "../modules/mail/mail-changes.ts";
import { claimDueMail, recordMailAttempt } from "../modules/mail/mail.store.ts";
import { type PeriodicTask, periodicTask } from "../shared/periodic-task.ts";
import { type MailTransport, createMailTransport, senderOf } from "./mail-transport.ts";

/** seconds after each failed attempt: 1 min, 5 min, 30 min, 2 h, 24 h (the webhooks' schedule) */
export const MAIL_RETRY_DELAYS_S = [60, 300, 1800, 7200, 86_400];
/**
 * Longer than a send can take: connecting, the greeting and the socket's idle limit each wait at most
 * MAIL_TIMEOUT_MS, and the result needs time to be recorded. After it another worker takes over.
 */
const leaseMs = (config: AppDeps["config"]) => 3 * config.mailTimeoutMs + 30_000;

export interface MailWorkerOptions {
  /** idle poll interval; wake() short-cuts it after a write */
  pollMs?: number;
  /** messages claimed (and sent at once) per cycle */
  batchSize?: number;
  /** how messages leave the process; tests give one that never answers to play a worker that died */
  transport?: MailTransport;
}

export class MailWorker {
  private readonly transport: MailTransport;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly loop: PeriodicTask;

  constructor(
    private readonly deps: AppDeps,
    options: MailWorkerOptions = {},
  ) {
    this.transport = options.transport ?? createMailTransport(deps.config, deps.logger);
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 20;
    // A full batch probably left more behind: go on at once.
    this.loop = periodicTask(() => this.runOnce(), {
      intervalMs: this.pollMs,
      onError: (error) => deps.logger.error("mail worker cycle failed", { error }),
      moreWaiting: (sent) => sent >= this.batchSize,
    });
  }

  /** Claims the due messages and sends them: what tests call after moving the clock. The number sent (or logged). */
  async runOnce(): Promise<number> {
    const now = this.deps.clock.now();
    const claimed = await claimDueMail(this.deps.db, now, new Date(now.getTime() + leaseMs(this.deps.config)), this.batchSize);
    const results = await Promise.all(claimed.map((message) => this.deliver(message)));
    return results.filter(Boolean).length;
  }

  /** A message may have been committed: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.transport.close();
  }

  /** Sends one claimed message and records the attempt; true when it went out. */
  private async deliver(message: MailMessage): Promise<boolean> {
    const { clock, config, db, logger } = this.deps;
    let outcome: "sent" | "logged" | null = null;
    let error: string | null = null;
    try {
      const from = senderOf(config.mailFrom, message.senderName);
      outcome = await this.transport.send({ id: message.id, from, to: message.recipient, subject: message.subject, ...mailBodiesOf(config, message) });
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const now = clock.now();
    const attempt = message.attemptCount + 1;
    const retryInS = outcome || attempt > MAIL_RETRY_DELAYS_S.length ? null : MAIL_RETRY_DELAYS_S[attempt - 1]!;
    const status = outcome ?? (retryInS === null ? "failed" : "pending");
    if (error) logger.warn("mail attempt failed", { mailId: message.id, attempt, mailStatus: status, error });
    const changed = [{ id: message.id, organizationId: message.organizationId, environment: message.environment, resourceId: message.resourceId ?? "", kind: message.kind }];
    const recorded = await recordMailAttempt(db, {
      id: message.id,
      claimedAttemptCount: message.attemptCount,
      status,
      nextAttemptAt: retryInS === null ? null : new Date(now.getTime() + retryInS * 1000),
      lastError: error,
      sentAt: outcome ? now : null,
      now,
    }, mailChanges.notices(this.deps, changed));
    // Committed: open screens show the message's new status now.
    if (recorded) mailChanges.announce(db, changed);
    if (!recorded) logger.warn("mail attempt was recorded by the worker that took it over", { mailId: message.id, attempt });
    return outcome !== null;
  }
}
