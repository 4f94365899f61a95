// A list screen's filters and page live in the address's query (?status=completed&search=acme&after=…),
// as Stripe's do: a reload or a shared link shows the same page of the same list, and Back returns to
// the filters and page before.
import { useRef } from "preact/hooks";
import { useSearchParams } from "wouter-preact";
import { type Cursor, PAGE_SIZE } from "../components/ui.tsx";

/** The query keys of a page's cursor: a changed filter drops them, so the list starts again at its first page. */
const CURSOR_KEYS = ["after", "before"] as const;

const withCursor = (previous: URLSearchParams, cursor: Cursor) => {
  const next = new URLSearchParams(previous);
  for (const key of CURSOR_KEYS) {
    const value = cursor[key];
    if (value) next.set(key, value);
    else next.delete(key);
  }
  return next;
};

/**
 * The screen's filters `keys` as the address has them ("" when absent), and a setter. A pick (a
 * status, a date) is one step of history; typing is one step per field typed into, not one a key.
 */
export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const lastTyped = useRef<K | null>(null);
  const values = Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ""])) as Record<K, string>;
  const set = (key: K, value: string, how: "pick" | "type" = "pick") => {
    const replace = how === "type" && lastTyped.current === key;
    lastTyped.current = how === "type" ? key : null;
    setParams(
      (previous) => {
        const next = withCursor(previous, {});
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace },
    );
  };
  return [values, set] as const;
}

/**
 * One list screen's page: its cursor in the address, a step of history per page turned. reset()
 * (a filter kept outside the address changed) goes back to the first page in place.
 */
export function usePaging() {
  const [params, setParams] = useSearchParams();
  const before = params.get("before");
  const after = params.get("after") ?? undefined;
  const variables = before ? { last: PAGE_SIZE, before } : { first: PAGE_SIZE, after };
  return {
    variables,
    setCursor: (cursor: Cursor) => setParams((previous) => withCursor(previous, cursor)),
    reset: () => setParams((previous) => withCursor(previous, {}), { replace: true }),
  };
}
