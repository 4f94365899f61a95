// Whether an endpoint is failing, and the one mail of a failure that lasts. An episode starts at an
// endpoint's first failed attempt after a success (or ever), and ends at its next success. Once an
// episode is an hour old, the next failed attempt queues the "Webhook endpoint failing" notice to
// the users who chose it, and marks the episode told: one mail per episode, however many attempts,
// deliveries or workers (the mark is a conditional update in the notice's own transaction).
import type { WebhookEndpoint } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { keyOf, loadNoticeAudiences, noticeRecipients, webhookFailingMail } from "../mail/mail-notices.ts";
import { queueMailsStatement } from "../mail/mail.service.ts";
import { claimFailingNotice, endFailingEpisodes, startFailingEpisodes } from "./webhook-endpoints.store.ts";

/** How long an endpoint fails before its people are told. */
export const FAILING_NOTICE_AFTER_MS = 60 * 60 * 1000;

export interface AttemptOutcome {
  /** the endpoint as read when its delivery was claimed */
  endpoint: WebhookEndpoint;
  succeeded: boolean;
  error: string | null;
}

class AlreadyTold extends Error {}

/** Records what a batch of recorded attempts says of their endpoints' health, and queues the notices due. */
export async function recordEndpointHealth(deps: Pick<Deps, "db" | "clock" | "ids" | "config">, outcomes: AttemptOutcome[], at: Date): Promise<void> {
  const byEndpoint = new Map<string, { endpoint: WebhookEndpoint; succeeded: boolean; error: string | null }>();
  for (const { endpoint, succeeded, error } of outcomes) {
    const seen = byEndpoint.get(endpoint.id) ?? { endpoint, succeeded: false, error: null };
    // One success in the batch is an endpoint that works.
    byEndpoint.set(endpoint.id, { endpoint, succeeded: seen.succeeded || succeeded, error: error ?? seen.error });
  }
  const all = [...byEndpoint.values()];
  // The endpoint as claimed says which writes can change anything: most batches need none.
  const recovered = all.filter((e) => e.succeeded && e.endpoint.failingSince).map((e) => e.endpoint.id);
  const starting = all.filter((e) => !e.succeeded && !e.endpoint.failingSince).map((e) => e.endpoint.id);
  const failingBefore = new Date(at.getTime() - FAILING_NOTICE_AFTER_MS);
  const due = all.filter((e) => !e.succeeded && !e.endpoint.failingNoticeAt && e.endpoint.failingSince && e.endpoint.failingSince <= failingBefore);
  const sql = typedSql(deps.db);
  const changes = [...(recovered.length ? [endFailingEpisodes(sql, recovered)] : []), ...(starting.length ? [startFailingEpisodes(sql, starting, at)] : [])];
  if (changes.length) await sql.direct.batch(changes);
  if (due.length === 0) return;

  const audiences = await loadNoticeAudiences(deps.db, due.map((e) => e.endpoint));
  for (const { endpoint, error } of due) {
    const audience = audiences.get(keyOf(endpoint))!;
    const mails = noticeRecipients(audience, "webhook_failing").map((to) => ({
      scope: endpoint,
      mail: webhookFailingMail(deps, endpoint, { since: endpoint.failingSince!, lastError: error }, audience, to),
    }));
    try {
      await sql.direct.batch([claimFailingNotice(sql, endpoint.id, failingBefore, at, () => new AlreadyTold()), ...(mails.length ? [queueMailsStatement(deps, mails)] : [])]);
    } catch (caught) {
      // Another worker told this episode first (or it ended meanwhile): nothing to send.
      if (!(caught instanceof AlreadyTold)) throw caught;
    }
  }
}
