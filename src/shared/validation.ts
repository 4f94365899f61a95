// Zod pieces shared by every resource's inputs, and the one place that turns a zod failure into the
// spec's message naming the field ("amount must match ^\d+(\.\d{1,7})?$").
import { z } from "zod";
import { badRequest, type DomainError } from "../errors.ts";
import { AMOUNT_PATTERN, AMOUNT_PATTERN_TEXT, MAX_AMOUNT, MAX_STROOPS, toStroops } from "./money.ts";
import { type Asset, assetKey, isStellarAddress } from "./assets.ts";

/** A name taken from the input is cut short: an error message never echoes a large input. */
const MAX_ECHOED_NAME = 40;
const shortName = (name: string) => (name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name);

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) =>
      typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${shortName(String(part))}` : shortName(String(part)),
    "",
  );
}

const article = (type: string) => (type === "int" ? "an integer" : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** Default messages as phrases that follow the field name; a schema's own `error` text wins. */
z.config({
  customError: (issue) => {
    switch (issue.code) {
      case "invalid_type":
        return issue.input === undefined ? "is required" : `must be ${issue.input === null ? "given (null is not allowed)" : article(issue.expected)}`;
      case "too_small":
        if (issue.origin === "string") return `must be at least ${issue.minimum} characters`;
        if (issue.origin === "array") return `must have at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}`;
        return `must be at least ${issue.minimum}`;
      case "too_big":
        if (issue.origin === "string") return `must be at most ${issue.maximum} characters`;
        if (issue.origin === "array") return `must have at most ${issue.maximum} items`;
        return `must be at most ${issue.maximum}`;
      case "invalid_format":
        return `must be a valid ${issue.format}`;
      case "invalid_value":
        return `must be one of ${issue.values.map((v) => String(v)).join(", ")}`;
      default:
        return undefined;
    }
  },
});

/** The first problem of a failed parse, as a 400 whose message names the field. */
function validationError(error: z.ZodError, root = "body"): DomainError {
  const issue = error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === "number" ? part : shortName(String(part))));
  if (issue.code === "unrecognized_keys") {
    const where = pathText(issue.path);
    const problem = "is not a recognized field";
    return badRequest(`${where ? `${where}.` : ""}${shortName(String(issue.keys[0]))} ${problem}`, { path: [...path, shortName(String(issue.keys[0]))], problem });
  }
  return badRequest(`${pathText(issue.path) || root} ${issue.message}`, { path: path.length ? path : [root], problem: issue.message });
}

/** Deeper than any resource's input (items[0].description is 3): past it, input is refused unread. */
const MAX_INPUT_DEPTH = 32;
/**
 * Text the databases cannot keep as given: NUL (PostgreSQL's text refuses it) and an unpaired
 * UTF-16 surrogate (not Unicode; one driver replaces it with U+FFFD, another refuses it).
 */
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses, as a 400 naming the field, input that no schema may see: nesting past MAX_INPUT_DEPTH
 * (JSON.stringify and recursive walks overflow the stack on it) and keys or strings holding
 * unstorable text. Each door calls it on what it received, before anything else reads it.
 * Iterative, so the input's own depth cannot exhaust the stack.
 */
export function refuseUnstorableInput(input: unknown, root: string): void {
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  const where = (path: PropertyKey[]) => pathText(path) || root;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === "string") {
      if (UNSTORABLE_TEXT.test(value)) throw badRequest(`${where(path)} must not contain NUL characters or unpaired surrogates`);
    } else if (typeof value === "object" && value !== null) {
      if (path.length >= MAX_INPUT_DEPTH) throw badRequest(`${where(path)} is nested too deeply`);
      const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        if (typeof key === "string" && UNSTORABLE_TEXT.test(key)) {
          throw badRequest(`${where(path)} has a key with NUL characters or unpaired surrogates`);
        }
        pending.push({ value: item, path: [...path, key] });
      }
    }
  }
}

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, root?: string): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(result.error, root);
  return result.data;
}

/**
 * The longest amount text taken: the largest amount is 20 characters; leading zeros may pad it. A
 * bound every string input has (it is declared in the OpenAPI document too), checked after the
 * pattern and the maximum so that their messages stay first.
 */
export const MAX_AMOUNT_TEXT_LENGTH = 32;

/** StellarAmount: a string of digits with at most 7 decimals, above zero, at most 2^63-1 stroops. */
export const amountSchema = z
  .string()
  .regex(AMOUNT_PATTERN, { error: `must match ${AMOUNT_PATTERN_TEXT}`, abort: true })
  .refine((value) => toStroops(value) <= MAX_STROOPS, { error: `must be at most ${MAX_AMOUNT}`, abort: true })
  .max(MAX_AMOUNT_TEXT_LENGTH)
  .transform((value, ctx) => {
    const stroops = toStroops(value);
    if (stroops === 0n) ctx.addIssue({ code: "custom", message: "must be greater than 0" });
    return stroops;
  });

export const assetCodeSchema = z
  .string()
  .regex(/^[A-Za-z0-9]{1,12}$/, { error: "must be 1 to 12 alphanumeric characters" })
  .max(12);

/** The shape of a Stellar public key, as the document shows it; the server checks its checksum too (isStellarAddress). */
export const STELLAR_ADDRESS_JSON_SCHEMA = { pattern: "^G[A-Z2-7]{55}$", maxLength: 56 } as const;

/** The longest id taken as input (customer_id, starting_after...): ids are a prefix and 24 characters. */
export const MAX_ID_LENGTH = 64;
/** An object's id given in a body or a query (its object is looked up after). */
export const idInputSchema = z.string().max(MAX_ID_LENGTH);

export const assetRefSchema = z
  .strictObject({
    asset_code: assetCodeSchema,
    // Checked by the transform below, whose messages depend on asset_code; the document shows its shape.
    issuer_address: z
      .string()
      .nullable()
      .optional()
      .meta({ override: { ...STELLAR_ADDRESS_JSON_SCHEMA } }),
  })
  // The rule between the two fields, for validators and generated clients alike: XLM has no issuer,
  // any other code names one.
  .meta({
    id: "AssetRefInput",
    description: "An asset: XLM (issuer_address null or left out), or a credit asset's code and its issuer's public key",
    override: ({ jsonSchema }) => {
      const properties = jsonSchema.properties!;
      jsonSchema.oneOf = [
        { properties: { asset_code: { const: "XLM" }, issuer_address: { type: "null" } } },
        {
          properties: { asset_code: { ...(properties.asset_code as object), not: { const: "XLM" } }, issuer_address: { type: "string", ...STELLAR_ADDRESS_JSON_SCHEMA } },
          required: ["asset_code", "issuer_address"],
        },
      ];
    },
  })
  .transform((ref, ctx): Asset => {
    const issuer = ref.issuer_address ?? null;
    if (ref.asset_code === "XLM" && issuer !== null) {
      ctx.addIssue({ code: "custom", path: ["issuer_address"], message: "must be null for XLM" });
    } else if (ref.asset_code !== "XLM" && (issuer === null || !isStellarAddress(issuer))) {
      ctx.addIssue({ code: "custom", path: ["issuer_address"], message: "must be the issuer's Stellar public key (G...)" });
    }
    return { code: ref.asset_code, issuer };
  });

const METADATA_MAX_KEYS = 50;
/**
 * Keys that reach an object's prototype machinery when a consumer copies metadata into a plain
 * object (`target[key] = value`). Refused, not dropped: zod's record skips `__proto__` silently, so
 * this check reads the keys before the record does.
 */
const RESERVED_METADATA_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const METADATA_MAX_KEY_LENGTH = 40;

/**
 * StringMetadata: up to 50 keys of 1..40 characters, string values of at most 500 characters. The
 * reserved-key check is a preprocess step so that the OpenAPI document shows the record's schema.
 */
export const metadataSchema = z
  .preprocess(
    (value, ctx) => {
      if (typeof value === "object" && value !== null) {
        const reserved = Object.keys(value).find((key) => RESERVED_METADATA_KEYS.has(key));
        if (reserved !== undefined) ctx.addIssue({ code: "custom", message: `must not use the reserved key ${reserved}` });
      }
      return value;
    },
    z
      .record(z.string(), z.string().max(500))
      .superRefine((record, ctx) => {
        const keys = Object.keys(record);
        if (keys.length > METADATA_MAX_KEYS) ctx.addIssue({ code: "custom", message: "must have at most 50 keys" });
        const badKey = keys.find((k) => k.length < 1 || k.length > METADATA_MAX_KEY_LENGTH);
        if (badKey !== undefined) ctx.addIssue({ code: "custom", message: "keys must be 1 to 40 characters" });
      })
      // The document shows the key rules the refinement checks.
      .meta({
        override: {
          maxProperties: METADATA_MAX_KEYS,
          propertyNames: { type: "string", minLength: 1, maxLength: METADATA_MAX_KEY_LENGTH },
        },
      }),
  )
  .nullable();

export const descriptionSchema = z.string().max(500).nullable();

/** At most this many assets in a payment's (link's, session's) allowed_assets. */
export const MAX_ALLOWED_ASSETS = 20;

/** allowed_assets: 1 to 20 assets, each once (an XLM given with a null issuer or without one is the same asset). */
export const allowedAssetsSchema = z
  .array(assetRefSchema)
  .min(1)
  .max(MAX_ALLOWED_ASSETS)
  .superRefine((assets, ctx) => {
    const seen = new Set(assets.map(assetKey));
    if (seen.size < assets.length) ctx.addIssue({ code: "custom", message: "must not name the same asset twice" });
  })
  .meta({ override: { uniqueItems: true } });

export const serializeMetadata = (metadata: Record<string, string> | null | undefined) =>
  metadata == null ? null : JSON.stringify(metadata);
export const deserializeMetadata = (json: string | null): Record<string, string> | null =>
  json == null ? null : (JSON.parse(json) as Record<string, string>);
