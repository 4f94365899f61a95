// A list screen's filters live in the address's query (?status=completed&search=acme), as Stripe's do:
// a reload or a shared link shows the same list, and Back returns to the filters before.
import { useRef } from "preact/hooks";
import { useSearchParams } from "wouter-preact";

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
        const next = new URLSearchParams(previous);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace },
    );
  };
  // What the list shows, as one string: usePaging starts again at the first page when it changes.
  const shown = keys.map((key) => `${key}=${values[key]}`).join("&");
  return [values, set, shown] as const;
}
