import { needs, builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { listConnection } from "../../graphql/connection.ts";
import { defined } from "../../graphql/shared-types.ts";
import { parseInput } from "../../shared/validation.ts";
import { maskSecret } from "../../webhooks/secret-box.ts";
import { WebhookDeliveryType, webhookDeliveryConnection } from "../webhook-deliveries/webhook-deliveries.graphql.ts";
import { createWebhookEndpointSchema, updateWebhookEndpointSchema } from "./webhook-endpoints.inputs.ts";
import {
  type EndpointWithSecret,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateWebhookEndpointSecret,
  getWebhookEndpointWithSecret,
  subscribedEvents,
  updateWebhookEndpoint,
} from "./webhook-endpoints.service.ts";
import { listWebhookEndpoints } from "./webhook-endpoints.store.ts";

const WebhookEndpointType = builder.prismaObject("WebhookEndpoint", {
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    description: t.exposeString("description", { nullable: true }),
    enabledEvents: t.stringList({ resolve: (e) => subscribedEvents(e) }),
    enabled: t.exposeBoolean("enabled"),
    secret: t.string({ description: "masked preview; the full secret is only returned by create and rotate", resolve: (e) => maskSecret(e.secret) }),
    previousSecretExpiresAt: t.expose("previousSecretExpiresAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    deliveries: t.connection({
      type: WebhookDeliveryType,
      resolve: (endpoint, args, ctx, info) => webhookDeliveryConnection(ctx, info, args, { endpointId: endpoint.id }),
    }),
  }),
});

/** What create and rotate answer: the endpoint and, this once, its whole secret. */
const WebhookEndpointSecretPayload = builder.objectRef<EndpointWithSecret>("WebhookEndpointSecretPayload").implement({
  fields: (t) => ({
    webhookEndpoint: t.field({ type: WebhookEndpointType, resolve: (p) => p.endpoint }),
    secret: t.exposeString("secret", { description: "the whole whsec_ signing secret, shown only here" }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoint: t.prismaField({
    type: "WebhookEndpoint",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, ctx) => getWebhookEndpoint(requireService(ctx), String(args.id)),
  }),
  webhookEndpoints: t.connection({
    type: WebhookEndpointType,
    resolve: (_root, args, ctx) => listConnection(args, (page) => listWebhookEndpoints(requireService(ctx), {}, page), (e) => e.id),
  }),
}));

const CreateWebhookEndpointInput = builder.inputType("CreateWebhookEndpointInput", {
  fields: (t) => ({
    url: t.string({ required: true }),
    enabledEvents: t.stringList({ required: true, description: 'event kinds, or ["*"] for all' }),
    description: t.string(),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType("UpdateWebhookEndpointInput", {
  fields: (t) => ({
    url: t.string(),
    enabledEvents: t.stringList(),
    description: t.string(),
    enabled: t.boolean(),
  }),
});

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    ...needs("developer"),
    type: WebhookEndpointSecretPayload,
    args: {
      input: t.arg({ type: CreateWebhookEndpointInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: async (_root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({ url: input.url, enabled_events: input.enabledEvents, description: input.description });
      // A replay answers the endpoint with its current secret, as REST's replay repeats the secret it created.
      const withId = (created: EndpointWithSecret) => ({ ...created, id: created.endpoint.id });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createWebhookEndpoint", input: body },
        async () => withId(await createWebhookEndpoint(service, parseInput(createWebhookEndpointSchema, body, "input"))),
        async (id) => withId(await getWebhookEndpointWithSecret(service, id)),
      );
    },
  }),
  updateWebhookEndpoint: t.prismaField({
    ...needs("developer"),
    type: "WebhookEndpoint",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: async (_query, _root, { id, input }, ctx) => {
      const body = defined({
        url: input.url ?? undefined,
        enabled_events: input.enabledEvents ?? undefined,
        description: input.description,
        enabled: input.enabled ?? undefined,
      });
      return updateWebhookEndpoint(requireService(ctx), String(id), parseInput(updateWebhookEndpointSchema, body, "input"));
    },
  }),
  deleteWebhookEndpoint: t.id({
    ...needs("developer"),
    description: "the deleted endpoint's id",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => (await deleteWebhookEndpoint(requireService(ctx), String(id))).id,
  }),
  rotateWebhookEndpointSecret: t.field({
    ...needs("developer"),
    type: WebhookEndpointSecretPayload,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => rotateWebhookEndpointSecret(requireService(ctx), String(id)),
  }),
}));
