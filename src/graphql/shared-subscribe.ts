// graphql-js executes a subscription's selection once per subscriber per event. Live checkout views
// are one object per event shared by every watcher of that checkout (checkout.live.ts), so the
// execution result is shared too: subscribers with the same operation text and variables get the
// same result for the same payload object. Payload objects that are not shared are not affected.
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  createSourceEventStream,
  execute,
  print,
} from "graphql";

type Result = ExecutionResult | Promise<ExecutionResult>;

const results = new WeakMap<object, Map<string, Result>>();
const printed = new WeakMap<DocumentNode, string>();

function operationText(document: DocumentNode): string {
  let text = printed.get(document);
  if (text === undefined) printed.set(document, (text = print(document)));
  return text;
}

export async function subscribeSharingResults(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source as ExecutionResult;
  const key = `${args.operationName ?? ""}\n${operationText(args.document)}\n${JSON.stringify(args.variableValues ?? {})}`;

  const resultFor = (payload: unknown): Result => {
    if (typeof payload !== "object" || payload === null) return execute({ ...args, rootValue: payload });
    let byOperation = results.get(payload);
    if (!byOperation) results.set(payload, (byOperation = new Map()));
    let result = byOperation.get(key);
    if (!result) byOperation.set(key, (result = execute({ ...args, rootValue: payload })));
    return result;
  };

  const iterator = source[Symbol.asyncIterator]();
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const step = await iterator.next();
      return step.done ? step : { value: await resultFor(step.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(error) {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  };
  return mapped;
}
