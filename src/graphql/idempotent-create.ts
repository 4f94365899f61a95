// GraphQL's `idempotencyKey` argument on create mutations: the same rule as REST's Idempotency-Key
// (src/modules/idempotency/idempotency.service.ts), stored per caller (API key, or dashboard user) in its own namespace. A replay answers with the
// resource the first call created (read afresh), or throws the first call's 4xx error again.
import { type ServiceContext, callerIdOf } from "../context.ts";
import { DomainError, type ErrorCode, type FieldProblem } from "../errors.ts";
import { httpStatusOf } from "../rest/errors.ts";
import { checkIdempotencyKey, requestFingerprint, runIdempotently } from "../modules/idempotency/idempotency.service.ts";

export async function idempotentCreate<T extends { id: string }>(
  service: ServiceContext,
  options: { key: string | null | undefined; mutation: string; input: unknown },
  create: () => Promise<T>,
  load: (id: string) => Promise<T>,
): Promise<T> {
  if (options.key == null) return create();
  let created: T | undefined;
  const { response } = await runIdempotently(
    service,
    {
      apiKeyId: callerIdOf(service.scope),
      key: `graphql:${checkIdempotencyKey(options.key)}`,
      requestHash: requestFingerprint("graphql", options.mutation, JSON.stringify(options.input)),
    },
    async () => {
      try {
        created = await create();
        return { status: 200, body: JSON.stringify({ id: created.id }) };
      } catch (error) {
        // Stored with REST's status of its code: the record says it is a final answer, not a 5xx to retry.
        if (error instanceof DomainError) return { status: httpStatusOf(error.code), body: JSON.stringify({ error: error.message, code: error.code, field: error.field }) };
        throw error;
      }
    },
  );
  if (created) return created;
  const stored = JSON.parse(response.body) as { id: string } | { error: string; code: ErrorCode; field?: FieldProblem };
  if ("error" in stored) throw new DomainError(stored.code, stored.error, stored.field);
  return load(stored.id);
}
