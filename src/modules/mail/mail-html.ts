// The HTML part of a mail, drawn from its plain-text part: the text is what every mail is written
// as, so the two parts never say different things and a writer of a mail has one thing to write.
// The drawing reads a few plain-text habits of this service's mails:
//   - a blank line separates paragraphs;
//   - "- " lines in a row are a list;
//   - two or more short "Label: value" lines in a row are a table of facts (amount, due date...);
//   - a line that ends with a link ("View and pay the invoice: https://...", or the link alone)
//     becomes a button, with the address also written out for mail readers that block buttons.
// preact-render-to-string builds the markup: every piece of text is escaped by construction, so a
// merchant's name or an invoice line ("<script>", "&", quotes) can never become markup.
import { type ComponentChildren, h } from "preact";
import { render } from "preact-render-to-string";

const LINK_AT_END = /^(.*?)(https?:\/\/\S+)$/;
const FACT = /^([^:]{1,40}): (.+)$/;

const colors = { text: "#1f2933", muted: "#616e7c", line: "#e4e7eb", accent: "#3a3ec8", page: "#f5f7fa" };
const cell = { padding: "4px 12px 4px 0", verticalAlign: "top" };

function linkBlock(label: string, url: string): ComponentChildren {
  return h(
    "div",
    { style: { margin: "20px 0" } },
    h(
      "a",
      {
        href: url,
        style: { background: colors.accent, color: "#ffffff", padding: "10px 18px", borderRadius: "6px", textDecoration: "none", fontWeight: "600", display: "inline-block" },
      },
      label,
    ),
    h("p", { style: { color: colors.muted, fontSize: "13px", margin: "10px 0 0", wordBreak: "break-all" } }, "Or open this address: ", h("a", { href: url, style: { color: colors.accent } }, url)),
  );
}

type LineKind = "item" | "fact" | "link" | "text";

function kindOf(line: string): LineKind {
  if (line.startsWith("- ")) return "item";
  if (LINK_AT_END.test(line)) return "link";
  return FACT.test(line) ? "fact" : "text";
}

/** One paragraph of the text part as HTML: its runs of list items, facts, links and plain lines. */
function block(lines: string[]): ComponentChildren[] {
  const runs: { kind: LineKind; lines: string[] }[] = [];
  for (const line of lines) {
    const kind = kindOf(line);
    const last = runs.at(-1);
    if (last && last.kind === kind && kind !== "link") last.lines.push(line);
    else runs.push({ kind, lines: [line] });
  }
  // A lone "Label: value" line is a sentence, not a table.
  for (const run of runs) if (run.kind === "fact" && run.lines.length < 2) run.kind = "text";
  const out: ComponentChildren[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(h("p", { style: { margin: "12px 0" } }, ...paragraph.flatMap((line, i) => (i ? [h("br", null), line] : [line]))));
    paragraph = [];
  };
  for (const run of runs) {
    if (run.kind === "text") {
      paragraph.push(...run.lines);
      continue;
    }
    if (run.kind === "link") {
      const [, before, url] = run.lines[0]!.match(LINK_AT_END)!;
      // A link alone on its line takes the line above it as its words ("Choose a new password here:").
      const words = before!.trim().replace(/:$/, "") || paragraph.pop()?.replace(/:$/, "") || "Open the link";
      flush();
      out.push(linkBlock(words, url!));
      continue;
    }
    flush();
    if (run.kind === "item") {
      out.push(h("ul", { style: { paddingLeft: "20px", margin: "12px 0" } }, ...run.lines.map((line) => h("li", { style: { margin: "4px 0" } }, line.slice(2)))));
    } else {
      const rows = run.lines.map((line) => {
        const [, label, value] = line.match(FACT)!;
        return h("tr", null, h("td", { style: { ...cell, color: colors.muted } }, label), h("td", { style: { ...cell, fontWeight: "600" } }, value));
      });
      out.push(h("table", { role: "presentation", style: { borderCollapse: "collapse", margin: "12px 0" } }, h("tbody", null, ...rows)));
    }
  }
  flush();
  return out;
}

/** The HTML part of a mail whose plain-text part is `text`: a page with the subject as its heading, `from` above it. */
export function mailHtml(mail: { subject: string; text: string; from: string }): string {
  const paragraphs = mail.text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.split("\n").map((line) => line.trimEnd()));
  const page = h(
    "html",
    { lang: "en" },
    h("head", null, h("meta", { charset: "utf-8" }), h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }), h("title", null, mail.subject)),
    h(
      "body",
      { style: { margin: "0", padding: "24px 12px", background: colors.page, fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: colors.text, fontSize: "15px", lineHeight: "1.5" } },
      h(
        "div",
        { style: { maxWidth: "560px", margin: "0 auto", background: "#ffffff", border: `1px solid ${colors.line}`, borderRadius: "8px", padding: "24px" } },
        h("p", { style: { margin: "0 0 4px", color: colors.muted, fontSize: "13px", fontWeight: "600" } }, mail.from),
        h("h1", { style: { margin: "0 0 8px", fontSize: "20px", lineHeight: "1.3" } }, mail.subject),
        ...paragraphs.flatMap(block),
      ),
    ),
  );
  return `<!doctype html>${render(page)}`;
}
