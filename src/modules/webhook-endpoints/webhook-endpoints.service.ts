// Webhook endpoints: where an organization's events go, and the secret that signs them. The secret
// leaves the service in full only from create and rotate; it is stored encrypted (secret-box.ts).
import type { WebhookEndpoint } from "../../generated/sqlite/client.ts";
import { type Deps, type ServiceContext, inScope } from "../../context.ts";
import { badRequest, notFound } from "../../errors.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { findPrivateAddress } from "../../webhooks/ssrf-guard.ts";
import { type SecretBox, SecretKeyMissingError, secretBoxOf } from "../../webhooks/secret-box.ts";
import { generateSecret } from "../../webhooks/signing.ts";
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from "./webhook-endpoints.inputs.ts";
import {
  endpointsWithSecretsNotSealedWith,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  replaceSecretsIfUnchanged,
  rotateSecretsIfCurrent,
  updateWebhookEndpointRow,
} from "./webhook-endpoints.store.ts";

/** After a rotation the old secret keeps signing this long, so receivers can switch without a gap. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** the whole whsec_ secret: shown this once */
  secret: string;
}

/** The secrets that sign a delivery made at `now`: the current one, and the previous during its grace period. */
export function signingSecrets(box: SecretBox, endpoint: WebhookEndpoint, now: Date): string[] {
  const previousActive = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  const stored = previousActive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  return stored.map((secret) => box.open(secret));
}

/** An endpoint with its current secret in full: what an idempotent create's replay answers. */
export async function getWebhookEndpointWithSecret(ctx: ServiceContext, id: string): Promise<EndpointWithSecret> {
  const endpoint = await getWebhookEndpoint(ctx, id);
  return { endpoint, secret: secretBoxOf(ctx.config).open(endpoint.secret) };
}

export const subscribedEvents = (endpoint: Pick<WebhookEndpoint, "enabledEvents">) =>
  JSON.parse(endpoint.enabledEvents) as string[];

/** Whether the endpoint receives events: enabled and not deleted (the store's `liveEndpoint` condition). */
export const isLive = (endpoint: Pick<WebhookEndpoint, "enabled" | "deletedAt">) => endpoint.enabled && endpoint.deletedAt === null;


/** https in production; never a private address, in either environment, unless the operator allows it. */
async function checkTarget(ctx: ServiceContext, url: string): Promise<void> {
  const parsed = new URL(url);
  if (ctx.scope.environment === "production" && parsed.protocol !== "https:") throw badRequest("url must use https", { path: ["url"], problem: "must start with https:// (production events are sent over https only)" });
  if (ctx.config.webhookAllowPrivate) return;
  const forbidden = await findPrivateAddress(parsed.hostname);
  if (forbidden) {
    throw badRequest(`url must not point to a private, loopback or link-local address (${forbidden})`, {
      path: ["url"],
      problem: `must be a public address on the internet; ${forbidden} is private, loopback or link-local`,
    });
  }
}

export async function createWebhookEndpoint(ctx: ServiceContext, input: CreateWebhookEndpointInput): Promise<EndpointWithSecret> {
  await checkTarget(ctx, input.url);
  const now = ctx.clock.now();
  const secret = generateSecret();
  const endpoint = await insertWebhookEndpoint(ctx.db, {
    id: ctx.ids.newId("we"),
    ...inScope(ctx.scope),
    url: input.url,
    description: input.description ?? null,
    enabledEvents: JSON.stringify(input.enabled_events),
    secret: secretBoxOf(ctx.config).seal(secret),
    createdAt: now,
    updatedAt: now,
  });
  return { endpoint, secret };
}

export async function getWebhookEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findWebhookEndpoint(ctx.db, ctx.scope, id);
  if (!endpoint) throw notFound();
  return endpoint;
}

export async function updateWebhookEndpoint(
  ctx: ServiceContext,
  id: string,
  input: UpdateWebhookEndpointInput,
): Promise<WebhookEndpoint> {
  await getWebhookEndpoint(ctx, id);
  if (input.url !== undefined) await checkTarget(ctx, input.url);
  return updateWebhookEndpointRow(ctx.db, id, {
    ...(input.url !== undefined && { url: input.url }),
    ...(input.enabled_events !== undefined && { enabledEvents: JSON.stringify(input.enabled_events) }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.enabled !== undefined && { enabled: input.enabled }),
    updatedAt: ctx.clock.now(),
  });
}

/** Deleted endpoints stay as rows (their delivery log refers to them) but are gone for every read and send. */
export async function deleteWebhookEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  await getWebhookEndpoint(ctx, id);
  const now = ctx.clock.now();
  return updateWebhookEndpointRow(ctx.db, id, { deletedAt: now, enabled: false, updatedAt: now });
}

/** A new secret; the current one becomes the previous and keeps signing for 24 h. */
export async function rotateWebhookEndpointSecret(ctx: ServiceContext, id: string): Promise<EndpointWithSecret> {
  const current = await getWebhookEndpoint(ctx, id);
  const now = ctx.clock.now();
  const secret = generateSecret();
  const actor = await actorOf(ctx);
  const rotated = {
    secret: secretBoxOf(ctx.config).seal(secret),
    previousSecret: current.secret,
    previousSecretExpiresAt: new Date(now.getTime() + ROTATION_GRACE_MS),
    updatedAt: now,
  };
  const audit = auditStatement(ctx, actor, { action: "webhook.secret_rotated", resourceId: id, detail: current.url });
  return { endpoint: await rotateSecretsIfCurrent(ctx.db, id, current.secret, rotated, [audit]), secret };
}

export interface ResealResult {
  /** secrets (current or previous) now encrypted with the current key that were not before */
  resealed: number;
  /** secrets left as they are: encrypted with a key that is not configured */
  unreadable: number;
  /** the ids of the keys those are encrypted with */
  missingKeyIds: string[];
}

/**
 * Encrypts with the current key every stored secret that is plain text (written before secrets were
 * encrypted) or encrypted with an older key, so old keys can be dropped. Each row is rewritten only
 * if it is still as read, so a rotation meanwhile is never undone; safe in N processes at once.
 */
export async function resealWebhookSecrets(deps: Deps): Promise<ResealResult> {
  const box = secretBoxOf(deps.config);
  const result: ResealResult = { resealed: 0, unreadable: 0, missingKeyIds: [] };
  const endpoints = await endpointsWithSecretsNotSealedWith(deps.db, box.currentPrefix);
  for (const endpoint of endpoints) {
    const sealed = { secret: endpoint.secret, previousSecret: endpoint.previousSecret };
    let changed = 0;
    for (const field of ["secret", "previousSecret"] as const) {
      const stored = endpoint[field];
      if (stored === null || !box.isStale(stored)) continue;
      try {
        sealed[field] = box.seal(box.open(stored));
        changed++;
      } catch (error) {
        if (!(error instanceof SecretKeyMissingError)) throw error;
        result.unreadable++;
        if (!result.missingKeyIds.includes(error.keyId)) result.missingKeyIds.push(error.keyId);
      }
    }
    if (changed === 0) continue;
    if (await replaceSecretsIfUnchanged(deps.db, endpoint, sealed)) result.resealed += changed;
  }
  return result;
}
