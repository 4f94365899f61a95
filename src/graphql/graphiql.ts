// GraphiQL at GET /graphql for a browser (Accept: text/html), from @graphql-yoga/render-graphiql:
// its page carries GraphiQL's script, styles, fonts and editor workers inline, so it works with no
// internet (yoga's own renderer loads GraphiQL from a CDN). The page is about 9 MB: the module is
// imported on the first visit, not at start, and the page is rendered once.
//
// Keys: in production (config.production) an anonymous caller gets no introspection, so GraphiQL
// shows its schema only once the user puts `{"Authorization": "Bearer <key>"}` in the headers
// editor, which opens with the page, and re-fetches the schema (GraphiQL does not on its own).
// Headers are not persisted in localStorage (a key would outlive the tab on a shared machine): the
// user pastes the key again after a reload.
import type { GraphiQLOptions } from "graphql-yoga";

export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: "Stellar Pay GraphiQL",
  shouldPersistHeaders: false,
  isHeadersEditorEnabled: true,
  defaultEditorToolsVisibility: "headers",
  defaultQuery: [
    "# Put your API key in Headers below:",
    '#   {"Authorization": "Bearer pk_test_..."}',
    "# then re-fetch the schema (the round arrow,",
    "# bottom left) for the docs and completion.",
    "",
    "{ payments(first: 5) { edges { node { id status amount } } } }",
    "",
  ].join("\n"),
};

let page: Promise<string> | undefined;

/** yoga's `renderGraphiQL`: the same options every time, so one rendering serves every visit. */
export function renderGraphiQLPage(options: GraphiQLOptions): Promise<string> {
  page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => renderGraphiQL(options));
  return page;
}
