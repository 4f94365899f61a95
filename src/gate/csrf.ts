// A browser sends the dashboard's session cookie with any request to this host, including one that
// another site's page makes it send (a form post, a text/plain fetch) without a CORS preflight. So a
// request that carries the session cookie must be one a browser preflights: Content-Type
// application/json (or any but the three "simple" ones), or the header x-graphql-yoga-csrf. That is
// yoga's CSRF prevention rule, applied here only to cookie callers: API-key callers (which a
// browser never sends on its own) and the public checkout keep working exactly as before.
import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import type { Plugin } from "graphql-yoga";
import { type DomainError, forbidden } from "../errors.ts";
import { sessionTokenOf } from "../modules/users/sessions.service.ts";

const yogaRule = useCSRFPrevention();

const carriesSessionCookie = (request: Request) => sessionTokenOf(request.headers.get("cookie")) !== null;

/** For /graphql: yoga's rule, for requests with the session cookie (refused with 403). */
export const useSessionCsrfPrevention = (): Plugin => ({
  onRequestParse(payload) {
    if (carriesSessionCookie(payload.request)) return yogaRule.onRequestParse!(payload);
  },
});

/** For /graphql/stream: the same rule's refusal (403), or null. */
export function csrfRefusal(request: Request): DomainError | null {
  if (!carriesSessionCookie(request)) return null;
  try {
    yogaRule.onRequestParse!({ request } as Parameters<NonNullable<Plugin["onRequestParse"]>>[0]);
    return null;
  } catch (error) {
    return forbidden((error as Error).message);
  }
}
