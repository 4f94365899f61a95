// The dashboard's small component set: every screen is built from these, so a control looks,
// reads (accessible name) and behaves the same everywhere.
import { type ComponentChildren, type JSX, createContext } from "preact";
import { useContext, useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { formatAmount } from "../src/format.ts";

/** What follows a screen's title in the browser tab ("Acme · Dashboard"), set by the app around its screens. */
export const TabTitleSuffix = createContext("");

/** The tab's title: the screen's, then the app's suffix, so that many open tabs tell apart. */
export function useTabTitle(title: string) {
  const suffix = useContext(TabTitleSuffix);
  useEffect(() => {
    document.title = suffix ? `${title} · ${suffix}` : title;
  }, [title, suffix]);
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useTabTitle(props.title);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{props.title}</h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

type ButtonProps = JSX.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "danger" | "plain" };
export function Button({ variant = "plain", type = "button", class: extra, ...rest }: ButtonProps) {
  return <button type={type as "button"} class={`button ${variant} ${extra ?? ""}`} {...rest} />;
}

const idOf = (label: string) => `field-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/**
 * What is said under a control: its hint and its error in words, each named by the control's
 * aria-describedby (`described`), so that a screen reader reads them with it.
 */
function notesOf(fieldId: string, hint: string | undefined, error: string | null | undefined) {
  const describedBy = [hint && `${fieldId}-hint`, error && `${fieldId}-error`].filter(Boolean).join(" ");
  return {
    /** the control's attributes: described by its notes, invalid while it has an error */
    described: { "aria-invalid": error ? true : undefined, "aria-describedby": describedBy || undefined },
    notes: (
      <>
        {hint && (
          <p class="hint" id={`${fieldId}-hint`}>
            {hint}
          </p>
        )}
        <FieldError id={fieldId} error={error} />
      </>
    ),
  };
}

/** A field's (or a group's) error in words, announced when it appears; its id is `${id}-error`. */
export const FieldError = (props: { id: string; error: string | null | undefined }) =>
  props.error ? (
    <p class="field-error" id={`${props.id}-error`} role="alert">
      {props.error}
    </p>
  ) : null;

/** A labelled input: the label is the field's accessible name; its error, in words, is shown and announced beside it. */
export function Field(props: { label: string; hint?: string; error?: string | null } & JSX.InputHTMLAttributes<HTMLInputElement>) {
  const { label, hint, error, id, ...input } = props;
  const fieldId = (id as string | undefined) ?? idOf(label);
  const { described, notes } = notesOf(fieldId, hint, error);
  return (
    <div class={`field${error ? " invalid" : ""}`}>
      <label for={fieldId}>{label}</label>
      <input id={fieldId} {...input} {...described} />
      {notes}
    </div>
  );
}

/** A labelled multi-line input (a transaction envelope, a long note), its error beside it as a Field's. */
export function TextArea(props: { label: string; hint?: string; error?: string | null } & JSX.TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { label, hint, error, id, ...area } = props;
  const fieldId = (id as string | undefined) ?? idOf(label);
  const { described, notes } = notesOf(fieldId, hint, error);
  return (
    <div class={`field${error ? " invalid" : ""}`}>
      <label for={fieldId}>{label}</label>
      <textarea id={fieldId} rows={4} {...area} {...described} />
      {notes}
    </div>
  );
}

export function Select(props: { label: string; value: string; options: [string, string][]; onChange: (value: string) => void; disabled?: boolean; error?: string | null }) {
  const id = idOf(props.label);
  const { described, notes } = notesOf(id, undefined, props.error);
  return (
    <div class={`field${props.error ? " invalid" : ""}`}>
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} disabled={props.disabled} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)} {...described}>
        {props.options.map(([value, text]) => (
          <option value={value} key={value}>
            {text}
          </option>
        ))}
      </select>
      {notes}
    </div>
  );
}

/** An error or a success, announced to screen readers once. */
export function Notice(props: { kind?: "error" | "ok"; children: ComponentChildren }) {
  if (!props.children) return null;
  return (
    <p class={`notice ${props.kind ?? "error"}`} role={props.kind === "ok" ? "status" : "alert"}>
      {props.children}
    </p>
  );
}

const STATUS_WORDS: Record<string, string> = {
  pending: "Pending",
  completed: "Completed",
  failed: "Failed",
  expired: "Expired",
  draft: "Draft",
  open: "Open",
  paid: "Paid",
  void: "Void",
  complete: "Complete",
  succeeded: "Succeeded",
  active: "Active",
  inactive: "Inactive",
  pending_claim: "Waiting for the payer",
  requires_signature: "Needs your signature",
  submitted: "Submitted",
  canceled: "Canceled",
  retrying: "Retrying",
  revoked: "Revoked",
};
/** A status in words (never colour alone). */
export const Status = (props: { value: string }) => <span class={`status status-${props.value}`}>{STATUS_WORDS[props.value] ?? props.value}</span>;

/** A webhook delivery's status: a pending one that has failed already is being retried, and says so. */
export const DeliveryStatus = (props: { status: string; attemptCount: number }) => (
  <Status value={props.status === "pending" && props.attemptCount > 0 ? "retrying" : props.status} />
);

export const Money = (props: { amount: string; asset?: { assetCode: string } | null }) => (
  <span class="money">
    {formatAmount(props.amount)} {props.asset?.assetCode ?? ""}
  </span>
);

export const When = (props: { at: string | null | undefined }) =>
  props.at ? <time dateTime={props.at}>{new Date(props.at).toLocaleString()}</time> : <span class="muted">—</span>;

/** Copies `value`; its accessible name says what it copies. */
export function CopyButton(props: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      // The name starts with what the button shows (WCAG's label in name), "Copied" included.
      aria-label={`${copied ? "Copied" : "Copy"} ${props.label}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(props.value).catch(() => undefined);
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? "Copied" : "Copy"}
    </Button>
  );
}

/** A secret shown once, with the warning that it will not be shown again. */
export function SecretOnce(props: { label: string; value: string; onDone: () => void }) {
  return (
    <div class="secret" role="region" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong>: copy it now, it will not be shown again.
      </p>
      <p class="secret-row">
        <code>{props.value}</code>
        <CopyButton value={props.value} label={props.label.toLowerCase()} />
      </p>
      <Button onClick={props.onDone}>Done</Button>
    </div>
  );
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor?: string | null;
  endCursor?: string | null;
}
export type Cursor = { after?: string; before?: string };

/** Previous/Next over a Relay connection. */
export function Pager(props: { pageInfo: PageInfo | undefined; onPage: (cursor: Cursor) => void }) {
  const info = props.pageInfo;
  if (!info || (!info.hasNextPage && !info.hasPreviousPage)) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <Button disabled={!info.hasPreviousPage} onClick={() => props.onPage({ before: info.startCursor ?? undefined })}>
        Previous page
      </Button>
      <Button disabled={!info.hasNextPage} onClick={() => props.onPage({ after: info.endCursor ?? undefined })}>
        Next page
      </Button>
    </nav>
  );
}

/**
 * A table; at phone width (style.css) each row turns into a stacked card, its first cell the title and
 * every other cell under its column's name. The names are copied onto the cells as data-label whenever
 * rows change (a row component may re-render alone), so that screens write plain <td>s and no cell can
 * get out of step with its heading.
 */
export function Table(props: { caption: string; head: string[]; children: ComponentChildren; empty?: string; rows: number }) {
  const body = useRef<HTMLTableSectionElement>(null);
  const head = useRef(props.head);
  head.current = props.head;
  useLayoutEffect(() => {
    const tbody = body.current!;
    const label = () => {
      for (const row of tbody.rows) {
        // A cell's column counts the spans before it (a subtotal's label spans the first columns).
        let column = 0;
        for (const cell of row.cells) {
          cell.setAttribute("data-label", cell.colSpan > 1 ? "" : (head.current[column] ?? ""));
          column += cell.colSpan;
        }
      }
    };
    label();
    const observer = new MutationObserver(label);
    observer.observe(tbody, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div class="table-wrap" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={body}>
          {props.rows === 0 ? (
            <tr>
              <td colSpan={props.head.length} class="muted">
                {props.empty ?? "Nothing here yet."}
              </td>
            </tr>
          ) : (
            props.children
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A list's filters: shown in a row on a laptop; at phone width folded behind one Filters button
 * (saying how many are set) so that the list starts on the first screen.
 */
export function ListFilters(props: { active: number; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div class="filters-box">
      <Button class="filters-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {props.active ? `Filters (${props.active})` : "Filters"}
      </Button>
      <form id={id} class={`filters ${open ? "open" : ""}`} aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        {props.children}
      </form>
    </div>
  );
}

export const PAGE_SIZE = 20;
