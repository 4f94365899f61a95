// The Stellar RPC API of the simulated network (JSON-RPC 2.0 over POST), over the same in-memory
// ledger its Horizon API serves. Field names, string-or-number encodings, limits, cursors and error
// messages follow stellar-rpc (cmd/stellar-rpc/internal/methods and go-stellar-sdk protocols/rpc), so
// that @stellar/stellar-sdk's rpc.Server parses every answer and a client written against it here
// behaves the same against a real node. The node keeps `retentionLedgers` ledgers: older ones are
// out of range for getEvents / getTransactions and their transactions are NOT_FOUND, as on a node
// whose history window has passed them.
import { StrKey, xdr } from "@stellar/stellar-sdk";
import { MalformedEnvelopeError, type Envelope, parseEnvelope } from "./apply-transaction.ts";
import type { History, StoredLedger, StoredTransaction } from "./history.ts";
import type { Submission } from "./horizon-routes.ts";
import { toid } from "./paging.ts";
import { buildTransactionResult } from "./result-xdr.ts";
import { PROTOCOL_VERSION, ledgerCloseMeta, ledgerEntry, ledgerHeader, transactionMeta } from "./rpc-xdr.ts";
import type { LedgerState } from "./state.ts";

/** What the RPC layer needs from the network. */
export interface RpcBackend {
  readonly networkPassphrase: string;
  readonly state: LedgerState;
  readonly history: History;
  /** How many of the latest ledgers the node answers for (stellar-rpc's HISTORY_RETENTION_WINDOW). */
  retentionLedgers: number;
  /**
   * How many of them getEvents answers for: fewer on a node configured with a shorter
   * EVENT_RETENTION_WINDOW than its TRANSACTION_RETENTION_WINDOW (stellar-rpc before 22 had both).
   */
  eventRetentionLedgers: number;
  /** The passphrase getNetwork answers: the network's, unless a test makes it a node of another network. */
  announcedPassphrase(): string;
  /** Test hook: getEvents answers these events with a topic that is not XDR (a node's or a proxy's fault). */
  malformsEvent(event: { txHash: string; operationIndex: number }): boolean;
  submitEnvelope(envelope: Envelope): Submission;
}

// stellar-rpc's defaults and limits.
const EVENTS_DEFAULT_LIMIT = 100;
const EVENTS_MAX_LIMIT = 10_000;
const EVENTS_LEDGER_SCAN_LIMIT = 10_000;
const TRANSACTIONS_DEFAULT_LIMIT = 50;
const TRANSACTIONS_MAX_LIMIT = 200;
const MAX_LEDGER_ENTRY_KEYS = 200;
const MAX_FILTERS = 5;
const MAX_CONTRACT_IDS = 5;
const MAX_TOPIC_FILTERS = 5;
const MAX_TOPIC_SEGMENTS = 4;

// JSON-RPC 2.0 error codes.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const invalidParams = (message: string) => new RpcError(INVALID_PARAMS, message);

type Params = Record<string, unknown>;
type Method = (backend: RpcBackend, params: Params, ctx: { friendbotUrl: string }) => unknown;

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
};

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...CORS } });

/** Answers one HTTP request to the RPC endpoint: a JSON-RPC call or a batch of them. */
export async function handleRpc(backend: RpcBackend, request: Request, friendbotUrl: string): Promise<Response> {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  if (request.method !== "POST") return json({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "only POST is supported" } }, 405);
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return json({ jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: "invalid request message" } });
  }
  const ctx = { friendbotUrl };
  if (Array.isArray(body)) {
    if (body.length === 0) return json({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "empty request batch" } });
    return json(body.map((call) => answerCall(backend, call, ctx)));
  }
  return json(answerCall(backend, body, ctx));
}

function answerCall(backend: RpcBackend, call: unknown, ctx: { friendbotUrl: string }): unknown {
  const id = isObject(call) && (typeof call.id === "string" || typeof call.id === "number") ? call.id : null;
  try {
    if (!isObject(call) || call.jsonrpc !== "2.0" || typeof call.method !== "string") throw new RpcError(INVALID_REQUEST, "invalid request message");
    const method = METHODS[call.method];
    if (!method) throw new RpcError(METHOD_NOT_FOUND, `no such method ${JSON.stringify(call.method)}`);
    const params = call.params ?? {};
    if (!isObject(params)) throw invalidParams("invalid parameters: params must be an object");
    return { jsonrpc: "2.0", id, result: method(backend, params, ctx) };
  } catch (error) {
    if (error instanceof RpcError) return { jsonrpc: "2.0", id, error: { code: error.code, message: error.message } };
    return { jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: "internal error" } };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// The node's window of ledgers

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The ledgers the node has: its transactions' window, or getEvents' (`events`), which may be shorter. */
function ledgerRange(backend: RpcBackend, events = false): { oldest: StoredLedger; latest: StoredLedger } {
  const { history } = backend;
  const latest = history.latestLedger;
  const first = history.ledgers[0]!.sequence;
  const retention = events ? Math.min(backend.eventRetentionLedgers, backend.retentionLedgers) : backend.retentionLedgers;
  const oldestSequence = Math.max(first, latest.sequence - retention + 1);
  return { oldest: history.ledger(oldestSequence)!, latest };
}

// ---------------------------------------------------------------------------------------------
// Parameter reading, with stellar-rpc's messages

function optionalUint(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidParams(`invalid parameters: ${name} must be an unsigned 32-bit integer`);
  }
  return value;
}

function pagination(params: Params): { cursor?: string; limit?: number } {
  const value = params.pagination;
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalidParams("invalid parameters: pagination must be an object");
  const limit = optionalUint(value, "limit");
  if (value.cursor !== undefined && value.cursor !== null && typeof value.cursor !== "string") {
    throw invalidParams("invalid parameters: pagination.cursor must be a string");
  }
  return { cursor: (value.cursor as string | undefined) || undefined, limit: limit || undefined };
}

function checkFormat(params: Params): void {
  const format = params.xdrFormat;
  if (format === undefined || format === "" || format === "base64") return;
  if (format === "json") throw invalidParams("xdrFormat json is not supported by the simulated network: use base64");
  throw invalidParams(`expected base64 or json for xdrFormat, got ${JSON.stringify(format)}`);
}

// ---------------------------------------------------------------------------------------------
// Events: ids and cursors are "<TOID>-<event index>", 19 and 10 digits, so they sort as strings.

interface EventCursor {
  ledger: number;
  tx: number;
  op: number;
  event: number;
}

const TX_MASK = (1 << 20) - 1;
const OP_MASK = (1 << 12) - 1;
const EVENT_MAX = 0xffffffff;

const cursorId = (c: EventCursor) => `${toid(c.ledger, c.tx, c.op).toString().padStart(19, "0")}-${String(c.event).padStart(10, "0")}`;

function parseEventCursor(text: string): EventCursor {
  const match = /^(\d{1,19})-(\d{1,10})$/.exec(text);
  const id = match ? BigInt(match[1]!) : -1n;
  const event = match ? Number(match[2]) : -1;
  if (!match || id > 0x7fffffffffffffffn || event > EVENT_MAX) throw invalidParams(`invalid parameters: invalid event id ${text}`);
  return { ledger: Number(id >> 32n), tx: Number((id >> 12n) & BigInt(TX_MASK)), op: Number(id & BigInt(OP_MASK)), event };
}

const compareCursors = (a: EventCursor, b: EventCursor) => a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;

interface IndexedEvent {
  cursor: EventCursor;
  contractId: string;
  /** canonical base64 XDR of each topic, compared as strings (equal XDR, equal text) */
  topics: string[];
  value: string;
  tx: StoredTransaction;
}

/** A ledger's events in id order: every fee event (before any transaction applies), then each operation's. */
const eventsByLedger = new WeakMap<StoredLedger, IndexedEvent[]>();

/**
 * Base64 XDR of the ScVals events share (names, assets, accounts: asset-events.ts makes one of each),
 * encoded once: each encoding allocates an 8 KB buffer, and a burst of 10,000 payments has 50,000 topics and values.
 */
const encodings = new WeakMap<xdr.ScVal, string>();
function base64Of(value: xdr.ScVal): string {
  let encoded = encodings.get(value);
  if (encoded === undefined) encodings.set(value, (encoded = value.toXDR("base64")));
  return encoded;
}

function ledgerEvents(ledger: StoredLedger): IndexedEvent[] {
  let events = eventsByLedger.get(ledger);
  if (events) return events;
  events = [];
  const index = (event: xdr.ContractEvent, cursor: EventCursor, tx: StoredTransaction): IndexedEvent => {
    const body = event.body().v0();
    return {
      cursor,
      contractId: StrKey.encodeContract(event.contractId() as unknown as Buffer),
      topics: body.topics().map(base64Of),
      value: body.data().toXDR("base64"),
      tx,
    };
  };
  let feeIndex = 0;
  for (const tx of ledger.transactions) {
    for (const event of tx.events.fee) events.push(index(event, { ledger: ledger.sequence, tx: 0, op: 0, event: feeIndex++ }, tx));
  }
  ledger.transactions.forEach((tx, txIndex) => {
    tx.events.operations.forEach((opEvents, op) => {
      opEvents.forEach((event, eventIndex) => events!.push(index(event, { ledger: ledger.sequence, tx: txIndex + 1, op, event: eventIndex }, tx)));
    });
  });
  eventsByLedger.set(ledger, events);
  return events;
}

interface TopicFilter {
  /** canonical base64 per segment; null is "*" */
  segments: (string | null)[];
  /** a trailing "**": the event may have more topics */
  atLeast: boolean;
}

interface EventFilter {
  types: string[];
  contractIds: string[];
  topics: TopicFilter[];
}

function parseTopicFilter(value: unknown): TopicFilter {
  if (!Array.isArray(value) || value.length < 1) throw new Error("topic must have at least 1 segment");
  const atLeast = value[value.length - 1] === "**";
  const segments = atLeast ? value.slice(0, -1) : value;
  segments.forEach((segment, i) => {
    if (segment === "**") throw new Error(`segment ${i + 1} invalid: wildcard '**' is only allowed as the last segment`);
  });
  if (segments.length > MAX_TOPIC_SEGMENTS) throw new Error(`topic cannot have more than ${MAX_TOPIC_SEGMENTS} segments`);
  return {
    atLeast,
    segments: segments.map((segment, i) => {
      if (segment === "*") return null;
      try {
        if (typeof segment !== "string") throw new Error("must set either wildcard or scval");
        return xdr.ScVal.fromXDR(segment, "base64").toXDR("base64");
      } catch {
        throw new Error(`segment ${i + 1} invalid: not a base64 ScVal`);
      }
    }),
  };
}

function parseFilter(value: unknown): EventFilter {
  if (!isObject(value)) throw new Error("must be an object");
  const types = typeof value.type === "string" && value.type !== "" ? value.type.split(",") : [];
  if (value.type !== undefined && typeof value.type !== "string") throw new Error("type must be a string");
  if (types.some((type) => type !== "system" && type !== "contract")) throw new Error("filter type invalid: if set, type must be either 'system' or 'contract'");
  const contractIds = value.contractIds ?? [];
  if (!Array.isArray(contractIds)) throw new Error("contractIds must be a list");
  if (contractIds.length > MAX_CONTRACT_IDS) throw new Error(`maximum ${MAX_CONTRACT_IDS} contract IDs per filter`);
  contractIds.forEach((id, i) => {
    if (typeof id !== "string" || !StrKey.isValidContract(id)) throw new Error(`contract ID ${i + 1} invalid`);
  });
  const topics = value.topics ?? [];
  if (!Array.isArray(topics)) throw new Error("topics must be a list");
  if (topics.length > MAX_TOPIC_FILTERS) throw new Error(`maximum ${MAX_TOPIC_FILTERS} topics per filter`);
  return {
    types,
    contractIds: contractIds as string[],
    topics: topics.map((topic, i) => {
      try {
        return parseTopicFilter(topic);
      } catch (error) {
        throw new Error(`topic ${i + 1} invalid: ${(error as Error).message}`);
      }
    }),
  };
}

function topicMatches(filter: TopicFilter, topics: string[]): boolean {
  if (filter.atLeast ? topics.length < filter.segments.length : topics.length !== filter.segments.length) return false;
  return filter.segments.every((segment, i) => segment === null || segment === topics[i]);
}

const filterMatches = (filter: EventFilter, event: IndexedEvent) =>
  // Every event here is a contract event (CAP-67's are emitted as such); none are "system".
  (filter.types.length === 0 || filter.types.includes("contract")) &&
  (filter.contractIds.length === 0 || filter.contractIds.includes(event.contractId)) &&
  (filter.topics.length === 0 || filter.topics.some((topic) => topicMatches(topic, event.topics)));

function getEvents(backend: RpcBackend, params: Params) {
  checkFormat(params);
  const page = pagination(params);
  const startLedger = optionalUint(params, "startLedger") ?? 0;
  const endLedgerParam = optionalUint(params, "endLedger") ?? 0;
  if (page.cursor !== undefined) {
    if (startLedger !== 0 || endLedgerParam !== 0) throw invalidParams("ledger ranges and cursor cannot both be set");
  } else if (startLedger <= 0) {
    throw invalidParams("startLedger must be positive");
  }
  if (page.limit !== undefined && page.limit > EVENTS_MAX_LIMIT) throw invalidParams(`limit must not exceed ${EVENTS_MAX_LIMIT}`);
  const rawFilters = params.filters ?? [];
  if (!Array.isArray(rawFilters)) throw invalidParams("invalid parameters: filters must be a list");
  if (rawFilters.length > MAX_FILTERS) throw invalidParams(`maximum ${MAX_FILTERS} filters per request`);
  const filters = rawFilters.map((filter, i) => {
    try {
      return parseFilter(filter);
    } catch (error) {
      throw invalidParams(`filter ${i + 1} invalid: ${(error as Error).message}`);
    }
  });

  const { oldest, latest } = ledgerRange(backend, true);
  let start: EventCursor = { ledger: startLedger, tx: 0, op: 0, event: 0 };
  if (page.cursor !== undefined) {
    // Paging starts right after the cursor (a uint32 event index that wraps, as in stellar-rpc).
    const cursor = parseEventCursor(page.cursor);
    start = { ...cursor, event: (cursor.event + 1) >>> 0 };
  }
  const limit = page.limit ?? EVENTS_DEFAULT_LIMIT;
  let endLedger = Math.min(start.ledger + EVENTS_LEDGER_SCAN_LIMIT, latest.sequence + 1);
  if (endLedgerParam !== 0) endLedger = Math.min(endLedgerParam, endLedger);
  if (start.ledger < oldest.sequence || start.ledger > latest.sequence) {
    throw new RpcError(INVALID_REQUEST, `startLedger must be within the ledger range: ${oldest.sequence} - ${latest.sequence}`);
  }

  const found: IndexedEvent[] = [];
  scan: for (let sequence = start.ledger; sequence < endLedger; sequence++) {
    const ledger = backend.history.ledger(sequence)!;
    for (const event of ledgerEvents(ledger)) {
      if (compareCursors(event.cursor, start) < 0) continue;
      if (filters.length > 0 && !filters.some((filter) => filterMatches(filter, event))) continue;
      found.push(event);
      if (found.length >= limit) break scan;
    }
  }

  return {
    events: found.map((event) => {
      const ledger = backend.history.ledger(event.cursor.ledger)!;
      return {
        type: "contract",
        ledger: event.cursor.ledger,
        ledgerClosedAt: ledger.closedAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
        contractId: event.contractId,
        id: cursorId(event.cursor),
        operationIndex: event.cursor.op,
        transactionIndex: event.cursor.tx,
        txHash: event.tx.hash,
        inSuccessfulContractCall: event.tx.successful,
        topic: backend.malformsEvent({ txHash: event.tx.hash, operationIndex: event.cursor.op }) ? ["bm90IFhEUg==", ...event.topics.slice(1)] : event.topics,
        value: event.value,
      };
    }),
    // The last event's id when the page is full, else the end of the window searched.
    cursor: found.length >= limit ? cursorId(found[found.length - 1]!.cursor) : cursorId({ ledger: endLedger - 1, tx: TX_MASK, op: OP_MASK, event: EVENT_MAX }),
    latestLedger: latest.sequence,
    oldestLedger: oldest.sequence,
    latestLedgerCloseTime: String(unixSeconds(latest.closedAt)),
    oldestLedgerCloseTime: String(unixSeconds(oldest.closedAt)),
  };
}

// ---------------------------------------------------------------------------------------------
// Transactions

const applicationOrder = (tx: StoredTransaction) => Number((tx.id >> 12n) & BigInt(TX_MASK));

/** The fields getTransaction and getTransactions share (createdAt differs: a string in the first). */
function transactionDetails(tx: StoredTransaction) {
  return {
    status: tx.successful ? "SUCCESS" : "FAILED",
    txHash: tx.hash,
    applicationOrder: applicationOrder(tx),
    feeBump: tx.envelope.feeBump !== undefined,
    envelopeXdr: tx.envelope.envelopeXdr,
    resultXdr: tx.resultXdr,
    resultMetaXdr: transactionMeta(tx).toXDR("base64"),
    events: {
      transactionEventsXdr: tx.events.fee.map((event) =>
        new xdr.TransactionEvent({ stage: xdr.TransactionEventStage.transactionEventStageBeforeAllTxes(), event }).toXDR("base64"),
      ),
      contractEventsXdr: tx.events.operations.map((events) => events.map((event) => event.toXDR("base64"))),
    },
    ledger: tx.ledger,
  };
}

function getTransaction(backend: RpcBackend, params: Params) {
  checkFormat(params);
  const hash = params.hash;
  if (typeof hash !== "string") throw invalidParams("invalid parameters: hash must be a string");
  if (hash.length !== 64) throw invalidParams(`unexpected hash length (${hash.length})`);
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw invalidParams(`incorrect hash: ${hash}`);
  const { oldest, latest } = ledgerRange(backend);
  const window = {
    latestLedger: latest.sequence,
    latestLedgerCloseTime: String(unixSeconds(latest.closedAt)),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: String(unixSeconds(oldest.closedAt)),
  };
  const tx = backend.history.transaction(hash);
  if (!tx || tx.ledger < oldest.sequence) return { ...window, status: "NOT_FOUND", txHash: hash.toLowerCase() };
  return { ...window, ...transactionDetails(tx), createdAt: String(unixSeconds(tx.createdAt)) };
}

function getTransactions(backend: RpcBackend, params: Params) {
  checkFormat(params);
  const page = pagination(params);
  const startLedger = optionalUint(params, "startLedger") ?? 0;
  const { oldest, latest } = ledgerRange(backend);
  if (page.cursor !== undefined) {
    if (startLedger !== 0) throw new RpcError(INVALID_REQUEST, "startLedger and cursor cannot both be set");
  } else if (startLedger < oldest.sequence || startLedger > latest.sequence) {
    throw new RpcError(
      INVALID_REQUEST,
      `start ledger must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance`,
    );
  }
  if (page.limit !== undefined && page.limit > TRANSACTIONS_MAX_LIMIT) throw new RpcError(INVALID_REQUEST, `limit must not exceed ${TRANSACTIONS_MAX_LIMIT}`);

  let start = { ledger: startLedger, tx: 1 };
  if (page.cursor !== undefined) {
    if (!/^-?\d{1,19}$/.test(page.cursor)) throw invalidParams(`strconv.ParseInt: parsing ${JSON.stringify(page.cursor)}: invalid syntax`);
    const cursor = BigInt(page.cursor);
    // Paging starts after the cursor's transaction.
    start = { ledger: Number(cursor >> 32n), tx: Number((cursor >> 12n) & BigInt(TX_MASK)) + 1 };
  }
  if (start.ledger < oldest.sequence) {
    throw invalidParams(`database does not contain metadata for ledger: ${start.ledger}`);
  }
  const limit = page.limit ?? TRANSACTIONS_DEFAULT_LIMIT;
  const transactions: ReturnType<typeof transactionDetails>[] = [];
  // As stellar-rpc: the cursor is the last transaction position looked at, (ledger, 0) for a ledger
  // where none was; a client pages on from it and deduplicates by hash.
  let cursor = 0n;
  scan: for (let sequence = start.ledger; sequence <= latest.sequence; sequence++) {
    const ledger = backend.history.ledger(sequence)!;
    const first = sequence === start.ledger ? start.tx : 1;
    cursor = toid(sequence, 0, 1);
    for (let order = first; order <= ledger.transactions.length; order++) {
      cursor = toid(sequence, order, 1);
      const tx = ledger.transactions[order - 1]!;
      transactions.push({ ...transactionDetails(tx), createdAt: unixSeconds(tx.createdAt) } as ReturnType<typeof transactionDetails>);
      if (transactions.length >= limit) break scan;
    }
  }
  return {
    transactions,
    latestLedger: latest.sequence,
    latestLedgerCloseTimestamp: unixSeconds(latest.closedAt),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTimestamp: unixSeconds(oldest.closedAt),
    cursor: cursor.toString(),
  };
}

function sendTransaction(backend: RpcBackend, params: Params) {
  checkFormat(params);
  if (typeof params.transaction !== "string") throw invalidParams("invalid parameters: transaction must be a string");
  let envelope: Envelope;
  try {
    envelope = parseEnvelope(params.transaction, backend.networkPassphrase);
  } catch (error) {
    if (error instanceof MalformedEnvelopeError) throw invalidParams("invalid_xdr");
    throw error;
  }
  const latest = backend.history.latestLedger;
  const answer = { hash: envelope.hash, latestLedger: latest.sequence, latestLedgerCloseTime: String(unixSeconds(latest.closedAt)) };
  const submission = backend.submitEnvelope(envelope);
  if (submission.status === "rejected") {
    return { ...answer, status: "ERROR", errorResultXdr: buildTransactionResult(submission.result).toXDR("base64") };
  }
  return { ...answer, status: submission.duplicate ? "DUPLICATE" : "PENDING" };
}

// ---------------------------------------------------------------------------------------------
// Network, health, ledgers, entries

function getLatestLedger(backend: RpcBackend) {
  const latest = backend.history.latestLedger;
  return {
    id: latest.hash,
    protocolVersion: PROTOCOL_VERSION,
    sequence: latest.sequence,
    closeTime: String(unixSeconds(latest.closedAt)),
    headerXdr: ledgerHeader(latest).toXDR("base64"),
    metadataXdr: ledgerCloseMeta(latest).toXDR("base64"),
  };
}

function getLedgerEntries(backend: RpcBackend, params: Params) {
  checkFormat(params);
  const keys = params.keys;
  if (!Array.isArray(keys)) throw invalidParams("invalid parameters: keys must be a list");
  if (keys.length > MAX_LEDGER_ENTRY_KEYS) throw invalidParams(`key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`);
  const entries = keys.flatMap((text, i) => {
    let key: xdr.LedgerKey;
    try {
      if (typeof text !== "string") throw new Error();
      key = xdr.LedgerKey.fromXDR(text, "base64");
    } catch {
      throw invalidParams(`cannot unmarshal key value ${String(text)} at index ${i}`);
    }
    const entry = ledgerEntry(backend.state, key);
    return entry ? [{ key: key.toXDR("base64"), xdr: entry.data.toXDR("base64"), lastModifiedLedgerSeq: entry.lastModifiedLedger }] : [];
  });
  return { entries, latestLedger: backend.history.latestLedger.sequence };
}

const METHODS: Record<string, Method> = {
  getHealth: (backend) => {
    const { oldest, latest } = ledgerRange(backend);
    return {
      status: "healthy",
      latestLedger: latest.sequence,
      latestLedgerCloseTime: unixSeconds(latest.closedAt),
      oldestLedger: oldest.sequence,
      ledgerRetentionWindow: backend.retentionLedgers,
    };
  },
  getNetwork: (backend, _params, ctx) => ({ friendbotUrl: ctx.friendbotUrl, passphrase: backend.announcedPassphrase(), protocolVersion: PROTOCOL_VERSION }),
  getLatestLedger,
  getEvents,
  getTransaction,
  getTransactions,
  sendTransaction,
  getLedgerEntries,
};
