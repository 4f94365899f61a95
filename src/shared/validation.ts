// Zod pieces shared by every resource's inputs, and the one place that turns a zod failure into the
// spec's message naming the field ("amount must match ^\d+(\.\d{1,7})?$").
import { z } from "zod";
import { badRequest, type DomainError } from "../errors.ts";
import { AMOUNT_PATTERN, AMOUNT_PATTERN_TEXT, MAX_STROOPS, toStroops } from "./money.ts";
import { type Asset, isStellarAddress } from "./assets.ts";

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)),
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
export function validationError(error: z.ZodError, root = "body"): DomainError {
  const issue = error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const where = pathText(issue.path);
    return badRequest(`${where ? `${where}.` : ""}${issue.keys[0]} is not a recognized field`);
  }
  return badRequest(`${pathText(issue.path) || root} ${issue.message}`);
}

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, root?: string): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(result.error, root);
  return result.data;
}

/** StellarAmount: a string of digits with at most 7 decimals, above zero, at most 2^63-1 stroops. */
export const amountSchema = z
  .string()
  .regex(AMOUNT_PATTERN, { error: `must match ${AMOUNT_PATTERN_TEXT}` })
  .transform((value, ctx) => {
    const stroops = toStroops(value);
    if (stroops === 0n) ctx.addIssue({ code: "custom", message: "must be greater than 0" });
    if (stroops > MAX_STROOPS) ctx.addIssue({ code: "custom", message: "must be at most 922337203685.4775807" });
    return stroops;
  });

export const assetCodeSchema = z
  .string()
  .regex(/^[A-Za-z0-9]{1,12}$/, { error: "must be 1 to 12 alphanumeric characters" });

export const assetRefSchema = z
  .strictObject({
    asset_code: assetCodeSchema,
    issuer_address: z.string().nullable().optional(),
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

/** StringMetadata: up to 50 keys of 1..40 characters, string values of at most 500 characters. */
export const metadataSchema = z
  .record(z.string(), z.string().max(500))
  .superRefine((record, ctx) => {
    const keys = Object.keys(record);
    if (keys.length > METADATA_MAX_KEYS) ctx.addIssue({ code: "custom", message: "must have at most 50 keys" });
    const badKey = keys.find((k) => k.length < 1 || k.length > 40);
    if (badKey !== undefined) ctx.addIssue({ code: "custom", message: "keys must be 1 to 40 characters" });
  })
  .nullable();

export const descriptionSchema = z.string().max(500).nullable();

export const serializeMetadata = (metadata: Record<string, string> | null | undefined) =>
  metadata == null ? null : JSON.stringify(metadata);
export const deserializeMetadata = (json: string | null): Record<string, string> | null =>
  json == null ? null : (JSON.parse(json) as Record<string, string>);
