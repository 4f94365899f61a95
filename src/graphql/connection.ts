// Relay connections on the list page every list reads (src/db/list-page.ts): `first`/`after`
// page down from the newest, `last`/`before` up from the oldest, as REST's `starting_after` and
// `ending_before` do. A cursor is base64 of `GPC:S:<id>`, the form @pothos/plugin-prisma wrote when
// it served these lists, so cursors handed out before still page.
import { parseCursorConnectionArgs } from "@pothos/core";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { Cursor, Page, PageRequest } from "../db/list-page.ts";
import { DomainError } from "../errors.ts";
import { DEFAULT_LIST_SIZE, MAX_LIST_SIZE } from "../gate/graphql-bounds.ts";

const PREFIX = "GPC:S:";
const KEY = /^[\x21-\x7e]{1,200}$/;

export const cursorOf = (key: string) => Buffer.from(`${PREFIX}${key}`, "latin1").toString("base64");

/**
 * The row a cursor names. Anything but a cursor of ours is BAD_USER_INPUT, with a message that does
 * not repeat the input (it may be anything, of any length).
 */
function cursorArgument(cursor: string, argument: string): Cursor {
  const decoded = cursor.length <= 300 ? Buffer.from(cursor, "base64").toString("latin1") : "";
  const key = decoded.startsWith(PREFIX) ? decoded.slice(PREFIX.length) : "";
  if (!KEY.test(key)) throw new DomainError("BAD_USER_INPUT", `${argument} is not a cursor of this list`);
  return { key, argument };
}

/** What a GraphQL selection asks Prisma to load with a row. */
export type PrismaSelection = { include?: object; select?: object };

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * A connection's answer: the page its arguments ask of `list`. `keyOf` gives a row's key, the
 * column the list pages by (its id).
 */
export async function listConnection<T>(args: ConnectionArgs, list: (page: PageRequest) => Promise<Page<T>>, keyOf: (row: T) => string) {
  const after = args.after != null ? cursorArgument(args.after, "after") : undefined;
  const before = args.before != null ? cursorArgument(args.before, "before") : undefined;
  const { expectedSize, inverted } = parseCursorConnectionArgs({ args, defaultSize: DEFAULT_LIST_SIZE, maxSize: MAX_LIST_SIZE });
  const page = await list({ limit: expectedSize, after, before, fromBefore: inverted });
  const edges = page.items.map((node) => ({ cursor: cursorOf(keyOf(node)), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasNextPage: inverted ? before !== undefined : page.hasMore,
      hasPreviousPage: inverted ? page.hasMore : after !== undefined,
    },
  };
}

/**
 * A page's rows as the GraphQL selection needs them. A row's relation fields would each load it
 * alone (@pothos/plugin-prisma's fallback: a query per row), so when the selection includes
 * relations the page's rows are read again with them, in one query (`load`, the store's read by ids
 * with a Prisma include), as a Prisma connection read them.
 */
export function withSelectedRelations<T extends { id: string }>(
  context: object,
  info: GraphQLResolveInfo,
  load: (ids: string[], query: PrismaSelection) => Promise<T[]>,
): (page: Page<T>) => Promise<Page<T>> {
  return async (page) => {
    const query = queryFromInfo({ context, info, path: ["edges", "node"] }) as PrismaSelection;
    if (page.items.length === 0 || (!query.include && !query.select)) return page;
    const rows = new Map((await load(page.items.map((row) => row.id), query)).map((row) => [row.id, row]));
    // A row deleted in between is left out, as a later read would.
    return { ...page, items: page.items.flatMap((row) => rows.get(row.id) ?? []) };
  };
}
