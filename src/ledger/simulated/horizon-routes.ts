// The Horizon HTTP API of the simulated network: routing, query parsing, HAL pages, SSE streams
// and transaction submission, in Horizon's URLs, status codes and error documents.
import { STATUS_CODES } from "node:http";
import { type Asset, Asset as SdkAsset } from "@stellar/stellar-sdk";
import { INT64_MAX, InvalidAmountError, formatAmount, parseAmount } from "./amounts.ts";
import { MalformedEnvelopeError, type Envelope, parseEnvelope } from "./apply-transaction.ts";
import { InvalidAssetError, assetFields, isAccountId, parseAssetTriple, parseCanonicalAsset } from "./assets.ts";
import { type History, type StoredOperation, type StoredTransaction, isPayment } from "./history.ts";
import {
  type Problem,
  accountRecord,
  claimableBalanceRecord,
  horizonTime,
  ledgerRecord,
  operationRecord,
  pageRecord,
  problems,
  transactionRecord,
} from "./horizon-records.ts";
import { type PathQuote, quoteStrictReceive, quoteStrictSend } from "./order-book.ts";
import { endOfLedger, firstAfter } from "./paging.ts";
import { type TransactionResultInput, buildTransactionResult, resultCodes } from "./result-xdr.ts";
import type { SseHub, StreamRecord } from "./sse.ts";
import { type LedgerState, availableBalance } from "./state.ts";

/** What a submission became once its ledger closed (or the wait ran out). */
export type SubmissionOutcome =
  | { status: "included"; transaction: StoredTransaction }
  | { status: "rejected"; envelope: Envelope; result: TransactionResultInput }
  | { status: "timeout"; hash: string };

/** A submission just after the validity check: rejected at once, or queued for the next ledger. */
export type Submission =
  | { status: "rejected"; envelope: Envelope; result: TransactionResultInput }
  | { status: "pending"; hash: string; duplicate: boolean; done: Promise<Exclude<SubmissionOutcome, { status: "timeout" }>> };

/** What the HTTP layer needs from the network. */
export interface HorizonBackend {
  readonly networkPassphrase: string;
  readonly state: LedgerState;
  readonly history: History;
  readonly sse: SseHub;
  readonly submissionTimeoutMs: number;
  submitEnvelope(envelope: Envelope): Submission;
  /** Friendbot: a createAccount from the root account; "exists" if the account is already there. */
  friendbotFund(address: string, startingBalance: bigint): Submission | { status: "exists" };
}

interface RequestContext {
  request: Request;
  url: URL;
  /** Absolute URL of the Horizon root, for `_links`. */
  base: string;
  /** Path below the Horizon root, e.g. "/accounts/G.../payments". */
  path: string;
  friendbotUrl: string;
  backend: HorizonBackend;
}

type Handler = (ctx: RequestContext, params: string[]) => Response | Promise<Response>;

const CORS = { "access-control-allow-origin": "*" };

const jsonResponse = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), {
    status,
    statusText: STATUS_CODES[status] ?? "",
    headers: { "content-type": "application/hal+json; charset=utf-8", ...CORS },
  });

// The reason phrase matters: the SDK's errors use it as their message ("Not Found").
export const problemResponse = (problem: Problem): Response =>
  new Response(JSON.stringify(problem), {
    status: problem.status,
    statusText: STATUS_CODES[problem.status] ?? "",
    headers: { "content-type": "application/problem+json; charset=utf-8", ...CORS },
  });

// ---------------------------------------------------------------------------------------------
// Collections: one implementation of cursor/order/limit paging and of streaming for all of them.

interface CollectionSpec<T extends { id: bigint }> {
  items: () => readonly T[];
  include: (item: T) => boolean;
  render: (item: T) => unknown;
}

interface Paging {
  cursor?: bigint;
  cursorText: string;
  order: "asc" | "desc";
  limit: number;
}

const MAX_CURSOR = INT64_MAX;

function parsePaging(ctx: RequestContext): Paging | Problem {
  const q = ctx.url.searchParams;
  const order = q.get("order") || "asc";
  if (order !== "asc" && order !== "desc") return problems.badRequest("order", "order: invalid value, must be asc or desc");
  const limitText = q.get("limit") || "10";
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 200) return problems.badRequest("limit", "limit: must be between 1 and 200");
  const cursorText = q.get("cursor") ?? "";
  if (cursorText === "") return { order, limit, cursorText };
  if (cursorText === "now") {
    const latest = ctx.backend.history.latestLedger.sequence;
    return { order, limit, cursorText, cursor: order === "asc" ? endOfLedger(latest) : MAX_CURSOR };
  }
  if (!/^\d{1,19}$/.test(cursorText) || BigInt(cursorText) > MAX_CURSOR) {
    return problems.badRequest("cursor", "cursor: must be a paging token or \"now\"");
  }
  return { order, limit, cursorText, cursor: BigInt(cursorText) };
}

const wantsStream = (request: Request) => (request.headers.get("accept") ?? "").includes("text/event-stream");

function collectionResponse<T extends { id: bigint }>(ctx: RequestContext, spec: CollectionSpec<T>): Response {
  const paging = parsePaging(ctx);
  if ("status" in paging) return problemResponse(paging);
  const token = (item: T) => item.id;

  if (wantsStream(ctx.request)) {
    // Last-Event-ID (a reconnecting EventSource) wins over the cursor in the URL, as on Horizon.
    const lastEventId = ctx.request.headers.get("last-event-id");
    const start = lastEventId && /^\d{1,19}$/.test(lastEventId) ? BigInt(lastEventId) : (paging.cursor ?? -1n);
    const source = (cursor: bigint): StreamRecord[] => {
      const items = spec.items();
      const records: StreamRecord[] = [];
      for (let i = firstAfter(items, token, cursor); i < items.length; i++) {
        const item = items[i]!;
        if (spec.include(item)) records.push({ token: item.id, record: spec.render(item) });
      }
      return records;
    };
    return ctx.backend.sse.open(source, start, ctx.request.signal);
  }

  const items = spec.items();
  const page: T[] = [];
  if (paging.order === "asc") {
    for (let i = firstAfter(items, token, paging.cursor ?? -1n); i < items.length && page.length < paging.limit; i++) {
      if (spec.include(items[i]!)) page.push(items[i]!);
    }
  } else {
    const cursor = paging.cursor ?? MAX_CURSOR;
    for (let i = firstAfter(items, token, cursor - 1n) - 1; i >= 0 && page.length < paging.limit; i--) {
      if (spec.include(items[i]!)) page.push(items[i]!);
    }
  }

  // Links keep the filters (include_failed, join) and move the cursor, as Horizon's do.
  const href = (cursor: string, order: string) => {
    const query = new URLSearchParams();
    for (const name of ["include_failed", "join"]) {
      const value = ctx.url.searchParams.get(name);
      if (value) query.set(name, value);
    }
    query.set("cursor", cursor);
    query.set("limit", String(paging.limit));
    query.set("order", order);
    return `${ctx.base}${ctx.path}?${query}`;
  };
  const first = page[0]?.id.toString() ?? paging.cursorText;
  const last = page[page.length - 1]?.id.toString() ?? paging.cursorText;
  return jsonResponse(
    pageRecord(
      { self: href(paging.cursorText, paging.order), next: href(last, paging.order), prev: href(first, paging.order === "asc" ? "desc" : "asc") },
      page.map(spec.render),
    ),
  );
}

const includeFailed = (ctx: RequestContext) => ctx.url.searchParams.get("include_failed") === "true";
const joinTransactions = (ctx: RequestContext) => ctx.url.searchParams.get("join") === "transactions";

type OperationKind = "payments" | "operations";

/** /payments lists the payment-like operations of /operations; failed ones only on request. */
function operationsSpec(
  ctx: RequestContext,
  items: () => readonly StoredOperation[],
  kind: OperationKind,
  all = false,
): CollectionSpec<StoredOperation> {
  const failed = all || includeFailed(ctx);
  const join = joinTransactions(ctx);
  return {
    items,
    include: (op) => (failed || op.transaction.successful) && (kind === "operations" || isPayment(op)),
    render: (op) => operationRecord(ctx.base, op, join),
  };
}

function transactionsSpec(ctx: RequestContext, items: () => readonly StoredTransaction[], all = false): CollectionSpec<StoredTransaction> {
  const failed = all || includeFailed(ctx);
  return {
    items,
    include: (tx) => failed || tx.successful,
    render: (tx) => transactionRecord(ctx.base, tx),
  };
}

function invalidAccount(id: string): Response | undefined {
  return isAccountId(id) ? undefined : problemResponse(problems.badRequest("account_id", "Account ID must start with `G` and contain 56 alphanum characters"));
}

const accountCollection: Handler = (ctx, [id = "", kind]) => {
  const invalid = invalidAccount(id);
  if (invalid) return invalid;
  const { history } = ctx.backend;
  if (kind === "transactions") return collectionResponse(ctx, transactionsSpec(ctx, () => history.transactionsOf(id)));
  return collectionResponse(ctx, operationsSpec(ctx, () => history.operationsOf(id), kind as OperationKind));
};

const globalCollection: Handler = (ctx, [kind]) => {
  const { history } = ctx.backend;
  if (kind === "ledgers") {
    return collectionResponse(ctx, { items: () => history.ledgers, include: () => true, render: (l) => ledgerRecord(ctx.base, l) });
  }
  if (kind === "transactions") return collectionResponse(ctx, transactionsSpec(ctx, () => history.transactions));
  return collectionResponse(ctx, operationsSpec(ctx, () => history.operations, kind as OperationKind));
};

const transactionCollection: Handler = (ctx, [hash = "", kind]) => {
  const tx = ctx.backend.history.transaction(hash);
  if (!tx) return problemResponse(problems.notFound());
  return collectionResponse(ctx, operationsSpec(ctx, () => tx.operations, kind as OperationKind, true));
};

const ledgerCollection: Handler = (ctx, [sequence = "", kind]) => {
  const ledger = ctx.backend.history.ledger(Number(sequence));
  if (!ledger) return problemResponse(problems.notFound());
  if (kind === "transactions") return collectionResponse(ctx, transactionsSpec(ctx, () => ledger.transactions));
  const operations = ledger.transactions.flatMap((tx) => tx.operations);
  return collectionResponse(ctx, operationsSpec(ctx, () => operations, kind as OperationKind));
};

// ---------------------------------------------------------------------------------------------
// Single resources.

const root: Handler = (ctx) => {
  const latest = ctx.backend.history.latestLedger;
  return jsonResponse({
    _links: {
      account: { href: `${ctx.base}/accounts/{account_id}`, templated: true },
      accounts: { href: `${ctx.base}/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}`, templated: true },
      fee_stats: { href: `${ctx.base}/fee_stats` },
      friendbot: { href: `${ctx.friendbotUrl}{?addr}`, templated: true },
      ledger: { href: `${ctx.base}/ledgers/{sequence}`, templated: true },
      ledgers: { href: `${ctx.base}/ledgers{?cursor,limit,order}`, templated: true },
      operations: { href: `${ctx.base}/operations{?cursor,limit,order,include_failed}`, templated: true },
      payments: { href: `${ctx.base}/payments{?cursor,limit,order,include_failed}`, templated: true },
      self: { href: `${ctx.base}/` },
      strict_receive_paths: { href: `${ctx.base}/paths/strict-receive{?source_assets,source_account,destination_account,destination_asset_type,destination_asset_issuer,destination_asset_code,destination_amount}`, templated: true },
      strict_send_paths: { href: `${ctx.base}/paths/strict-send{?destination_account,destination_assets,source_asset_type,source_asset_issuer,source_asset_code,source_amount}`, templated: true },
      transaction: { href: `${ctx.base}/transactions/{hash}`, templated: true },
      transactions: { href: `${ctx.base}/transactions{?cursor,limit,order}`, templated: true },
    },
    horizon_version: "simulated",
    core_version: "stellar-core (simulated)",
    ingest_latest_ledger: latest.sequence,
    history_latest_ledger: latest.sequence,
    history_latest_ledger_closed_at: horizonTime(latest.closedAt),
    history_elder_ledger: ctx.backend.history.ledgers[0]!.sequence,
    core_latest_ledger: latest.sequence,
    network_passphrase: ctx.backend.networkPassphrase,
    current_protocol_version: 22,
    supported_protocol_version: 22,
    core_supported_protocol_version: 22,
  });
};

/** Fee percentiles per operation over the last five ledgers; 100 stroops when they were empty. */
const feeStats: Handler = (ctx) => {
  const { history } = ctx.backend;
  const recent = history.ledgers.slice(-5).flatMap((ledger) => ledger.transactions);
  const perOp = (total: bigint, tx: StoredTransaction) => total / BigInt(Math.max(1, tx.operations.length));
  const stats = (values: bigint[]) => {
    const sorted = (values.length > 0 ? values : [100n]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!.toString();
    const counts = new Map<bigint, number>();
    for (const v of sorted) counts.set(v, (counts.get(v) ?? 0) + 1);
    const mode = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    return {
      max: sorted[sorted.length - 1]!.toString(),
      min: sorted[0]!.toString(),
      mode: mode.toString(),
      ...Object.fromEntries([10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99].map((p) => [`p${p}`, at(p)])),
    };
  };
  return jsonResponse({
    last_ledger: String(history.latestLedger.sequence),
    last_ledger_base_fee: "100",
    ledger_capacity_usage: "0.00",
    fee_charged: stats(recent.map((tx) => perOp(tx.feeCharged, tx))),
    max_fee: stats(recent.map((tx) => perOp(tx.envelope.maxFee, tx))),
  });
};

const account: Handler = (ctx, [id = ""]) => {
  const invalid = invalidAccount(id);
  if (invalid) return invalid;
  const entry = ctx.backend.state.accounts.get(id);
  return entry ? jsonResponse(accountRecord(ctx.base, entry)) : problemResponse(problems.notFound());
};

const accountData: Handler = (ctx, [id = "", key = ""]) => {
  const value = ctx.backend.state.accounts.get(id)?.data.get(decodeURIComponent(key));
  return value ? jsonResponse({ value: value.toString("base64") }) : problemResponse(problems.notFound());
};

const claimableBalance: Handler = (ctx, [id = ""]) => {
  const found = ctx.backend.state.claimableBalances.get(id.toLowerCase());
  return found ? jsonResponse(claimableBalanceRecord(ctx.base, found)) : problemResponse(problems.notFound());
};

/** GET /claimable_balances?claimant=G...: the balances an account may claim (one page: the simulated network holds few). */
const claimableBalances: Handler = (ctx) => {
  const claimant = ctx.url.searchParams.get("claimant") ?? "";
  const invalid = invalidAccount(claimant);
  if (invalid) return invalid;
  const records = [...ctx.backend.state.claimableBalances.values()]
    .filter((balance) => balance.claimants.some((c) => c.destination === claimant))
    .map((balance) => claimableBalanceRecord(ctx.base, balance));
  const self = `${ctx.base}/claimable_balances?claimant=${claimant}`;
  return jsonResponse(pageRecord({ self, next: self, prev: self }, records));
};

const transaction: Handler = (ctx, [hash = ""]) => {
  const tx = ctx.backend.history.transaction(hash);
  return tx ? jsonResponse(transactionRecord(ctx.base, tx, hash.toLowerCase())) : problemResponse(problems.notFound());
};

const ledger: Handler = (ctx, [sequence = ""]) => {
  const found = ctx.backend.history.ledger(Number(sequence));
  return found ? jsonResponse(ledgerRecord(ctx.base, found)) : problemResponse(problems.notFound());
};

const operation: Handler = (ctx, [id = ""]) => {
  const found = /^\d{1,19}$/.test(id) ? ctx.backend.history.operation(BigInt(id)) : undefined;
  return found ? jsonResponse(operationRecord(ctx.base, found, joinTransactions(ctx))) : problemResponse(problems.notFound());
};

// ---------------------------------------------------------------------------------------------
// Submission.

/** Horizon's 400 for a rejected or failed transaction, with result codes and result XDR. */
function transactionFailedResponse(envelopeXdr: string, result: TransactionResultInput, resultXdr?: string): Response {
  return problemResponse(
    problems.transactionFailed({
      envelope_xdr: envelopeXdr,
      result_codes: resultCodes(result),
      result_xdr: resultXdr ?? buildTransactionResult(result).toXDR("base64"),
    }),
  );
}

/** The answer for a settled submission, as POST /transactions gives it. */
function outcomeResponse(ctx: RequestContext, outcome: SubmissionOutcome): Response {
  switch (outcome.status) {
    case "timeout":
      return problemResponse(problems.timeout(outcome.hash));
    case "rejected":
      return transactionFailedResponse(outcome.envelope.envelopeXdr, outcome.result);
    case "included": {
      const tx = outcome.transaction;
      if (!tx.successful) return transactionFailedResponse(tx.envelope.envelopeXdr, tx.result, tx.resultXdr);
      return jsonResponse(transactionRecord(ctx.base, tx));
    }
  }
}

/** Waits for the submission's ledger, at most submissionTimeoutMs (then 504, as Horizon). */
async function settle(ctx: RequestContext, submission: Submission): Promise<Response> {
  if (submission.status === "rejected") return outcomeResponse(ctx, submission);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<SubmissionOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ status: "timeout", hash: submission.hash }), ctx.backend.submissionTimeoutMs);
  });
  try {
    return outcomeResponse(ctx, await Promise.race([submission.done, timeout]));
  } finally {
    clearTimeout(timer);
  }
}

/** The `tx` form field. A raw (not URL-encoded) base64 "+" arrives as a space: put it back. */
async function readTxField(request: Request): Promise<string | undefined> {
  const text = await request.text();
  let value: unknown;
  if ((request.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      value = (JSON.parse(text) as { tx?: unknown }).tx;
    } catch {
      value = undefined;
    }
  } else {
    value = new URLSearchParams(text).get("tx");
  }
  return typeof value === "string" && value.trim() !== "" ? value.trim().replace(/ /g, "+") : undefined;
}

async function parseSubmittedEnvelope(ctx: RequestContext): Promise<Envelope | Response> {
  const tx = await readTxField(ctx.request);
  if (!tx) return problemResponse(problems.badRequest("tx", "tx: required field is missing"));
  try {
    return parseEnvelope(tx, ctx.backend.networkPassphrase);
  } catch (error) {
    if (error instanceof MalformedEnvelopeError) return problemResponse(problems.transactionMalformed(tx, error.message));
    throw error;
  }
}

const submitTransaction: Handler = async (ctx) => {
  const envelope = await parseSubmittedEnvelope(ctx);
  if (envelope instanceof Response) return envelope;
  return settle(ctx, ctx.backend.submitEnvelope(envelope));
};

/** POST /transactions_async: answers after the validity check, without waiting for the ledger. */
const submitTransactionAsync: Handler = async (ctx) => {
  const envelope = await parseSubmittedEnvelope(ctx);
  if (envelope instanceof Response) return envelope;
  const submission = ctx.backend.submitEnvelope(envelope);
  if (submission.status === "rejected") {
    const errorResultXdr = buildTransactionResult(submission.result).toXDR("base64");
    return jsonResponse({ tx_status: "ERROR", hash: envelope.hash, errorResultXdr }, 400);
  }
  if (submission.duplicate) return jsonResponse({ tx_status: "DUPLICATE", hash: envelope.hash }, 409);
  return jsonResponse({ tx_status: "PENDING", hash: envelope.hash }, 201);
};

const FRIENDBOT_STARTING_BALANCE = 10_000n * 10_000_000n;

const friendbot = async (ctx: RequestContext): Promise<Response> => {
  const address = ctx.url.searchParams.get("addr") ?? "";
  if (!isAccountId(address)) return problemResponse(problems.badRequest("addr", "base32 decode failed: illegal base32 data"));
  const submission = ctx.backend.friendbotFund(address, FRIENDBOT_STARTING_BALANCE);
  if (submission.status === "exists") {
    // Real friendbot checks first and answers with the result core would give.
    const alreadyExists = buildTransactionResult({
      feeCharged: 100n,
      code: "txFailed",
      operations: [{ type: "createAccount", code: "alreadyExist" }],
    }).toXDR("base64");
    return problemResponse(problems.badRequest("addr", `createAccountAlreadyExist (${alreadyExists})`));
  }
  return settle(ctx, submission);
};

// ---------------------------------------------------------------------------------------------
// Path finding.

function pathRecord(quote: PathQuote) {
  return {
    ...assetFields(quote.source, "source_"),
    source_amount: formatAmount(quote.sourceAmount),
    ...assetFields(quote.destination, "destination_"),
    destination_amount: formatAmount(quote.destinationAmount),
    path: quote.path.map((asset) => assetFields(asset)),
  };
}

function parsePositiveAmount(text: string | null, field: string): bigint | Problem {
  try {
    const amount = parseAmount(text ?? "");
    return amount > 0n ? amount : problems.badRequest(field, `${field}: must be positive`);
  } catch (error) {
    if (error instanceof InvalidAmountError) return problems.badRequest(field, `${field}: invalid amount`);
    throw error;
  }
}

function parseAssetList(text: string, field: string): Asset[] | Problem {
  try {
    return text.split(",").filter(Boolean).map(parseCanonicalAsset);
  } catch (error) {
    if (error instanceof InvalidAssetError) return problems.badRequest(field, `${field}: ${error.message}`);
    throw error;
  }
}

/** The assets an account holds and can spend `amount` of (Horizon filters by balance). */
function spendableAssets(state: LedgerState, accountId: string, amount?: bigint): Asset[] {
  const entry = state.accounts.get(accountId);
  if (!entry) return [];
  const assets: Asset[] = [];
  if (amount === undefined || availableBalance(entry) >= amount) assets.push(SdkAsset.native());
  for (const line of entry.trustlines.values()) {
    if (amount === undefined || line.balance >= amount) assets.push(line.asset);
  }
  return assets;
}

function pathsPage(ctx: RequestContext, quotes: PathQuote[]): Response {
  const self = `${ctx.base}${ctx.path}${ctx.url.search}`;
  return jsonResponse(pageRecord({ self, next: self, prev: self }, quotes.slice(0, 20).map(pathRecord)));
}

const strictReceivePaths: Handler = (ctx) => {
  const q = ctx.url.searchParams;
  let destination: Asset;
  try {
    destination = parseAssetTriple(q.get("destination_asset_type"), q.get("destination_asset_code"), q.get("destination_asset_issuer"));
  } catch (error) {
    if (error instanceof InvalidAssetError) return problemResponse(problems.badRequest("destination_asset_type", error.message));
    throw error;
  }
  const amount = parsePositiveAmount(q.get("destination_amount"), "destination_amount");
  if (typeof amount !== "bigint") return problemResponse(amount);

  const sourceAccount = q.get("source_account");
  const sourceAssets = q.get("source_assets");
  if (Boolean(sourceAccount) === Boolean(sourceAssets)) {
    return problemResponse(problems.badRequest("source_assets", "provide exactly one of source_account and source_assets"));
  }
  const { state } = ctx.backend;
  if (sourceAccount) {
    const invalid = invalidAccount(sourceAccount);
    if (invalid) return invalid;
    const quotes = quoteStrictReceive(state.book, spendableAssets(state, sourceAccount), destination, amount);
    // Only paths the account can pay for, as Horizon does for source_account.
    return pathsPage(ctx, quotes.filter((quote) => spendableAssets(state, sourceAccount, quote.sourceAmount).some((a) => a.equals(quote.source))));
  }
  const sources = parseAssetList(sourceAssets!, "source_assets");
  if (!Array.isArray(sources)) return problemResponse(sources);
  return pathsPage(ctx, quoteStrictReceive(state.book, sources, destination, amount));
};

const strictSendPaths: Handler = (ctx) => {
  const q = ctx.url.searchParams;
  let source: Asset;
  try {
    source = parseAssetTriple(q.get("source_asset_type"), q.get("source_asset_code"), q.get("source_asset_issuer"));
  } catch (error) {
    if (error instanceof InvalidAssetError) return problemResponse(problems.badRequest("source_asset_type", error.message));
    throw error;
  }
  const amount = parsePositiveAmount(q.get("source_amount"), "source_amount");
  if (typeof amount !== "bigint") return problemResponse(amount);

  const destinationAccount = q.get("destination_account");
  const destinationAssets = q.get("destination_assets");
  if (Boolean(destinationAccount) === Boolean(destinationAssets)) {
    return problemResponse(problems.badRequest("destination_assets", "provide exactly one of destination_account and destination_assets"));
  }
  const { state } = ctx.backend;
  let destinations: Asset[];
  if (destinationAccount) {
    const invalid = invalidAccount(destinationAccount);
    if (invalid) return invalid;
    destinations = spendableAssets(state, destinationAccount);
  } else {
    const parsed = parseAssetList(destinationAssets!, "destination_assets");
    if (!Array.isArray(parsed)) return problemResponse(parsed);
    destinations = parsed;
  }
  return pathsPage(ctx, quoteStrictSend(state.book, source, amount, destinations));
};

// ---------------------------------------------------------------------------------------------
// Routing.

const ROUTES: [method: string, pattern: RegExp, handler: Handler][] = [
  ["GET", /^\/?$/, root],
  ["GET", /^\/fee_stats$/, feeStats],
  ["GET", /^\/accounts\/([^/]+)$/, account],
  ["GET", /^\/accounts\/([^/]+)\/data\/([^/]+)$/, accountData],
  ["GET", /^\/accounts\/([^/]+)\/(payments|operations|transactions)$/, accountCollection],
  ["GET", /^\/(payments|operations|transactions|ledgers)$/, globalCollection],
  ["GET", /^\/transactions\/([0-9a-fA-F]{64})$/, transaction],
  ["GET", /^\/transactions\/([0-9a-fA-F]{64})\/(payments|operations)$/, transactionCollection],
  ["GET", /^\/ledgers\/(\d{1,10})$/, ledger],
  ["GET", /^\/ledgers\/(\d{1,10})\/(payments|operations|transactions)$/, ledgerCollection],
  ["GET", /^\/operations\/([^/]+)$/, operation],
  ["GET", /^\/claimable_balances\/?$/, claimableBalances],
  ["GET", /^\/claimable_balances\/([0-9a-fA-F]{72})$/, claimableBalance],
  ["POST", /^\/transactions$/, submitTransaction],
  ["POST", /^\/transactions_async$/, submitTransactionAsync],
  ["GET", /^\/paths\/strict-receive$/, strictReceivePaths],
  ["GET", /^\/paths\/strict-send$/, strictSendPaths],
  ["GET", /^\/friendbot$/, friendbot], // the SDK's server.friendbot() asks Horizon's own URL
];

export async function handleHorizon(
  backend: HorizonBackend,
  request: Request,
  url: URL,
  base: string,
  path: string,
  friendbotUrl: string,
): Promise<Response> {
  if (request.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: { ...CORS, "access-control-allow-methods": "GET, POST", "access-control-allow-headers": "*" },
    });
  }
  const ctx: RequestContext = { request, url, base, path, friendbotUrl, backend };
  let methodMismatch = false;
  for (const [method, pattern, handler] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    if (method !== request.method && !(method === "GET" && request.method === "HEAD")) {
      methodMismatch = true;
      continue;
    }
    return handler(ctx, match.slice(1).map((part) => decodeURIComponent(part)));
  }
  return problemResponse(methodMismatch ? problems.methodNotAllowed() : problems.notFound());
}
