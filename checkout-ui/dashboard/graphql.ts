// The dashboard's GraphQL: operations are typed from schema.graphql by gql.tada (graphql-env.d.ts is
// generated from it by `npm run check` and at install), so a field the server lacks fails the type
// check, not the merchant. Queries and mutations go over fetch to /graphql with the session cookie;
// subscriptions over graphql-sse to /graphql/stream. The environment (sandbox or production) is a
// header on every request, as the server expects of sessions.
import { Client, cacheExchange, fetchExchange, makeOperation, mapExchange, subscriptionExchange } from "@urql/core";
import { initGraphQLTada } from "gql.tada";
import { createClient as createSseClient } from "graphql-sse";
import type { introspection } from "./graphql-env.d.ts";

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; Metadata: Record<string, string> | null };
}>();
export type { ResultOf, VariablesOf } from "gql.tada";

export type Environment = "sandbox" | "production";

/**
 * After any change, no screen shows what was true before it: every query's answer is filed under
 * "Query" besides its own types, and every mutation invalidates "Query". The screen's open queries
 * are read again at once and every other cached answer is dropped, so a screen opened next is read
 * afresh. (urql's document cache alone invalidates only the answers holding a type the mutation
 * returns: not an empty list, nor after a Boolean answer, nor what a change implies elsewhere, such
 * as Home's checklist after a new webhook endpoint.)
 */
const freshAfterEveryMutation = mapExchange({
  onOperation(operation) {
    const typenames = operation.context.additionalTypenames ?? [];
    if ((operation.kind !== "query" && operation.kind !== "mutation") || typenames.includes("Query")) return operation;
    return makeOperation(operation.kind, operation, { ...operation.context, additionalTypenames: [...typenames, "Query"] });
  },
});

/** A client for one environment: switching environments makes a new one, so no cached row crosses over. */
export function clientFor(environment: Environment): Client {
  const headers = { "service-environment": environment };
  const sse = createSseClient({ url: "/graphql/stream", headers, credentials: "same-origin", retryAttempts: Infinity });
  return new Client({
    url: "/graphql",
    fetchOptions: { headers, credentials: "same-origin" },
    requestPolicy: "cache-and-network",
    // POST with a JSON body, never GET: the server's CSRF rule refuses a cookie-carrying GET without it.
    preferGetMethod: false,
    exchanges: [
      freshAfterEveryMutation,
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (operation) => ({
          subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...operation, query: operation.query ?? "" }, sink) }),
        }),
      }),
    ],
  });
}

/** The message of a GraphQL or network error, as a person should read it. */
export function errorText(error: { graphQLErrors?: { message: string }[]; networkError?: Error; message: string } | undefined): string | null {
  if (!error) return null;
  if (error.graphQLErrors?.length) return error.graphQLErrors.map((e) => e.message).join("; ");
  if (error.networkError) return "The service could not be reached. Check your connection and try again.";
  return error.message;
}

/** The GraphQL error code (extensions.code) of a failed operation, if any. */
export const errorCode = (error: { graphQLErrors?: { extensions?: Record<string, unknown> }[] } | undefined) =>
  (error?.graphQLErrors?.[0]?.extensions?.code as string | undefined) ?? null;

type OperationError = { graphQLErrors?: { message: string; extensions?: Record<string, unknown> }[]; networkError?: Error; message: string } | undefined;

/**
 * A failed form's errors split by where they are shown: beside the field the server named
 * (extensions.field, one of `fields`: "items.0.unitAmount"), or above the buttons for the rest.
 */
export function formErrors(error: OperationError, fields: readonly string[]): { of(field: string): string | null; other: string | null } {
  const beside = new Map<string, string>();
  const rest: string[] = [];
  for (const e of error?.graphQLErrors ?? []) {
    const field = e.extensions?.field;
    if (typeof field === "string" && fields.includes(field)) beside.set(field, e.message);
    else rest.push(e.message);
  }
  const other = rest.length ? rest.join("; ") : error && !error.graphQLErrors?.length ? errorText(error) : null;
  return { of: (field) => beside.get(field) ?? null, other };
}
