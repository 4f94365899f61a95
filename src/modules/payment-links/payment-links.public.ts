// The public door of a payment link: GET /c/plink_<id> (no API key) answers 303 to a brand-new
// checkout session. Kept apart from the checkout page under /c/ so the two compose: this answers
// only plink_ paths and returns null for everything else.
import type { AppDeps } from "../../context.ts";
import { DomainError, type ErrorCode, tooManyRequests } from "../../errors.ts";
import { OPERATION_POINTS, type RateLimits } from "../../gate/rate-limit.ts";
import { httpErrorOf } from "../../rest/errors.ts";
import type { ApiResponse } from "../../rest/transport.ts";
import type { Logger } from "../../shared/logger.ts";
import { visitPaymentLink } from "./payment-links.service.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";

const LINK_PATH = /^\/c\/(plink_[0-9A-Za-z]{1,64})\/?$/;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function htmlPage(status: number, title: string, message: string): ApiResponse {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
  return { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, body };
}

/** What a visitor reads instead of a checkout, by error code (otherwise the error's message). */
const PAGE_TEXT: Partial<Record<ErrorCode, [title: string, text: string]>> = {
  RATE_LIMITED: ["Too many requests", "Too many requests from your network. Please try again in a moment."],
  GONE: ["Payment link inactive", "This payment link is inactive. Please contact the merchant."],
  NOT_FOUND: ["Payment link not found", "This payment link does not exist."],
};

/** The page of an error, with the status REST gives it. */
function errorPage(error: unknown, logger: Logger, requestId: string | undefined): ApiResponse {
  const { status, message } = httpErrorOf(error, logger, requestId);
  const [title, text] =
    error instanceof DomainError
      ? (PAGE_TEXT[error.code] ?? ["Payment link unavailable", message])
      : ["Something went wrong", "The payment link could not be opened. Please try again."];
  return htmlPage(status, title, text);
}

/** The payment link id of a visit's path, or null when the path is not a payment link's. */
export const paymentLinkIdOf = (path: string) => LINK_PATH.exec(path)?.[1] ?? null;

/**
 * The answer to a visit of payment link `linkId`. Served straight from node:http like /api/v1: a
 * link shared on a busy page is visited as often as the API is called.
 */
export async function handlePaymentLinkVisit(
  deps: AppDeps,
  rateLimits: RateLimits,
  visit: { method: string; linkId: string; clientAddress: string; requestId?: string },
): Promise<ApiResponse> {
  // Only GET: every visit creates a session, so nothing else may trigger one.
  if (visit.method !== "GET") return { status: 405, headers: { allow: "GET", "content-type": "text/plain" }, body: "" };
  const linkId = visit.linkId;
  // A visit writes rows and sends a webhook: it spends more of the visitor's budget than a read.
  const decision = await rateLimits.chargeAddress(visit.clientAddress, OPERATION_POINTS.paymentLinkVisit);
  if (!decision.allowed) {
    const page = errorPage(tooManyRequests(), deps.logger, visit.requestId);
    return { ...page, headers: { ...page.headers, ...decision.headers } };
  }
  try {
    const session = await visitPaymentLink(deps, linkId);
    return {
      status: 303,
      headers: { location: checkoutSessionUrl(deps.config.publicUrl, session.id), "cache-control": "no-store", "content-type": "text/plain" },
      body: "",
    };
  } catch (error) {
    return errorPage(error, deps.logger, visit.requestId);
  }
}
