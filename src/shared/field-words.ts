// A refused input field in the words a person reads ("Item 1 unit amount: a number with up to 7
// decimals"), for the doors that speak to people (GraphQL, hence the dashboard). REST keeps the
// spec's wording ("items[0].unit_amount must match ^\d+(\.\d{1,7})?$"): the same problem, told twice.
import type { FieldProblem } from "../errors.ts";
import { AMOUNT_PATTERN_TEXT } from "./money.ts";

/** Phrases written for programs, and what they mean to a person. */
const PLAIN_PHRASES: Record<string, string> = {
  [`must match ${AMOUNT_PATTERN_TEXT}`]: "a number with up to 7 decimals",
  "must be greater than 0": "must be more than 0",
  "is required": "required",
  "must equal the sum of items quantity x unit_amount": "must equal the items' total (quantity × unit amount)",
  "must be a whole number from 1 to 999999999, as a string": "a whole number from 1 to 999999999",
  "must be a Stellar public key (G...)": "a Stellar account address: 56 characters starting with G",
  "must be an http or https URL": "a web address starting with https://",
  "must have at least 1 item": "choose at least one",
  "must be a valid email address": "an email address, such as name@example.com",
};

/** A field's name as its input spells it (unit_amount, unitAmount) in words (unit amount). */
const wordsOf = (name: string) =>
  name
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/\b(url|id)\b/g, (word) => word.toUpperCase());

/** An array's name for one of its elements: items[0] is item 1. */
const singular = (words: string) => (words.endsWith("s") ? words.slice(0, -1) : words);

/** The field's label: ["items", 0, "unit_amount"] is "Item 1 unit amount". */
function labelOf(path: FieldProblem["path"]): string {
  const parts: string[] = [];
  for (const part of path) {
    if (typeof part === "number") parts.push(`${singular(parts.pop() ?? "item")} ${part + 1}`);
    else parts.push(wordsOf(part));
  }
  const label = parts.join(" ");
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** The sentence a person reads about the field. */
export const fieldSentence = (field: FieldProblem) => field.words ?? `${labelOf(field.path)}: ${PLAIN_PHRASES[field.problem] ?? field.problem}`;

/** The field's path as GraphQL names it (its input fields are camelCase): "items.0.unitAmount". */
export const graphqlFieldPath = (path: FieldProblem["path"]) =>
  path.map((part) => (typeof part === "number" ? String(part) : part.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()))).join(".");
