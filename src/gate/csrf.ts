// Another site's page can make a browser send a request here without a CORS preflight: a form post or
// a text/plain fetch (a POST), an image or a link (a GET). Such a request carries this host's cookies,
// and its answer's Set-Cookie is applied. So a request must be one a browser preflights: Content-Type
// application/json (or any but the three "simple" ones), or the header x-graphql-yoga-csrf. That is
// yoga's CSRF prevention rule, applied
// - to every POST, cookie or not: a cross-site form post of `login` would otherwise sign the victim
//   in as the attacker (login CSRF), its Set-Cookie replacing the victim's session;
// - to a GET only when it carries the session cookie: a GET runs no mutation, so without the cookie
//   it has nothing of the victim's to use, and API-key callers' GETs work as before.
import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import type { Plugin } from "graphql-yoga";
import { type DomainError, forbidden } from "../errors.ts";
import { sessionTokenOf } from "../modules/users/sessions.service.ts";

const yogaRule = useCSRFPrevention();

const carriesSessionCookie = (request: Request) => sessionTokenOf(request.headers.get("cookie")) !== null;

const mustBePreflighted = (request: Request) => request.method === "POST" || carriesSessionCookie(request);

/** For /graphql: yoga's rule (refused with 403). */
export const useCsrfPrevention = (): Plugin => ({
  onRequestParse(payload) {
    if (mustBePreflighted(payload.request)) return yogaRule.onRequestParse!(payload);
  },
});

/** For /graphql/stream: the same rule's refusal (403), or null. */
export function csrfRefusal(request: Request): DomainError | null {
  if (!mustBePreflighted(request)) return null;
  try {
    yogaRule.onRequestParse!({ request } as Parameters<NonNullable<Plugin["onRequestParse"]>>[0]);
    return null;
  } catch (error) {
    return forbidden((error as Error).message);
  }
}
