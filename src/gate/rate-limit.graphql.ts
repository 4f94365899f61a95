// A GraphQL request spends rate-limit points by what it asks for: 1 at the door (src/app.ts calls
// `admit` before the request reaches yoga or graphql-sse), and the rest after validation, before
// anything executes: each distinct root field (alias)
// costs its points, so 300 aliases of createPayment cost 300. With an API key the key's budget pays
// (the same one /api/v1 spends); without one, the caller's address's public budget. Used by
// /graphql (the yoga plugin below) and /graphql/stream (src/graphql/sse.ts).
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  getOperationAST,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Deps, Scope } from "../context.ts";
import { tooManyRequests } from "../errors.ts";
import { waitInWords } from "../shared/wait-words.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { ApiResponse } from "../rest/transport.ts";
import { clientAddressOf } from "./client-address.ts";
import { type RateLimits, OPERATION_POINTS } from "./rate-limit.ts";

const pointsOfField = (name: string) => (OPERATION_POINTS as Record<string, number>)[name] ?? 1;

/**
 * The points of the operation `operationName` of a validated document. Root fields are counted by
 * response key, as execution merges fields with the same key, and each fragment is read once, so
 * the count takes time linear in the document however its fragments spread one another.
 */
export function operationPoints(document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 1;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const fieldOfKey = new Map<string, string>();
  const read = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fieldOfKey.set(selection.alias?.value ?? selection.name.value, selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!read.has(selection.name.value)) {
        read.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  let points = 0;
  for (const field of fieldOfKey.values()) points += pointsOfField(field);
  return Math.max(1, points);
}

function rateLimitedError(retryAfterSeconds: number): GraphQLError {
  // A plain GraphQLError (no originalError): graphql-sse ends a refused subscription's stream after it.
  // The words say the wait as a person reads it; extensions.retryAfter keeps the seconds for programs.
  const { message, code } = tooManyRequests();
  return new GraphQLError(`${message}; try again in ${waitInWords(retryAfterSeconds)}`, { extensions: { code, retryAfter: retryAfterSeconds } });
}

export interface GraphQLRateGate {
  /**
   * At the door of /graphql and /graphql/stream, before the body is read or a GraphQL server sees
   * the request: 1 point of the caller's budget. A caller already over budget is answered here, so
   * a flood costs no parsing or validation.
   */
  admit(authorization: string | null, address: string): Promise<ApiResponse | null>;
  /** Before execution: the rest of the operation's points; the error to answer with when refused. */
  chargeOperation(operation: { document: DocumentNode; operationName?: string | null; scope: Scope | null; request: Request }): Promise<GraphQLError | null>;
}

export function createGraphQLRateGate(deps: Deps, rateLimits: RateLimits): GraphQLRateGate {
  const charge = (scope: Scope | null, address: string, points: number) =>
    scope ? rateLimits.chargeKey(scope, points) : rateLimits.chargeAddress(address, points);
  return {
    async admit(authorization, address) {
      const scope = await authenticateApiKey(deps, bearerToken(authorization));
      const decision = await charge(scope, address, 1);
      if (decision.allowed) return null;
      return { status: 200, headers: decision.headers, body: JSON.stringify({ errors: [rateLimitedError(decision.retryAfterSeconds).toJSON()] }) };
    },
    async chargeOperation({ document, operationName, scope, request }) {
      const points = operationPoints(document, operationName) - 1;
      if (points <= 0) return null;
      const decision = await charge(scope, clientAddressOf(request), points);
      return decision.allowed ? null : rateLimitedError(decision.retryAfterSeconds);
    },
  };
}

/** The yoga plugin: queries and mutations (onExecute) and subscriptions (onSubscribe) pay their points. */
export function useRateLimits(gate: GraphQLRateGate): Plugin<{ scope: Scope | null }> {
  const charge = async ({
    args,
    setResultAndStopExecution,
  }: {
    args: { document: DocumentNode; operationName?: string | null; contextValue: { scope: Scope | null; request: Request } };
    setResultAndStopExecution(result: { errors: GraphQLError[] }): void;
  }) => {
    const { scope, request } = args.contextValue;
    const refused = await gate.chargeOperation({ document: args.document, operationName: args.operationName, scope, request });
    if (refused) setResultAndStopExecution({ errors: [refused] });
  };
  return { onExecute: charge, onSubscribe: charge };
}
