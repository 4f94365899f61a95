// The service with yoga's own graphql-sse plugin (@graphql-yoga/plugin-graphql-sse) at
// /graphql/stream instead of src/graphql/sse.ts, for bench/one-home.ts to measure side by side
// (issue #14, item 4). Everything else is the app's node:http listener. Same schema, same context
// and the same shared subscription results as the service; not the service's stream caps, body
// limit or bounds, which would wrap the plugin the same way they wrap graphql-sse today.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { useGraphQLSSE } from "@graphql-yoga/plugin-graphql-sse";
import { type Plugin, createYoga } from "graphql-yoga";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createRateLimits } from "../../src/gate/rate-limit.ts";
import { type GraphQLContext, contextOf } from "../../src/graphql/context.ts";
import { schema } from "../../src/graphql/schema.ts";
import { subscribeSharingResults } from "../../src/graphql/shared-subscribe.ts";
import { SSE_PATH } from "../../src/graphql/sse.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { timeOrderedIds } from "../../src/shared/ids.ts";
import { createLogger } from "../../src/shared/logger.ts";

const config = loadConfig(process.env);
const database = openDatabase(config.databaseUrl);
const deps = { db: database.db, config, clock: systemClock, ids: timeOrderedIds, logger: createLogger(config.logLevel) };
const app = buildApp(deps);
const graphqlDeps = { ...deps, ledger: app.ledger, loginThrottle: createRateLimits(config).logins };
// As the service's handler does: one execution per event for every watcher of the same checkout.
const shareResults: Plugin = { onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribeSharingResults as never) };
const yoga = createYoga<Record<string, never>, GraphQLContext>({
  schema,
  graphqlEndpoint: "/graphql",
  landingPage: false,
  logging: false,
  plugins: [useGraphQLSSE({ endpoint: SSE_PATH }), shareResults],
  // A stream sets no cookie (null), as on the service's own /graphql/stream.
  context: ({ request }) => contextOf(graphqlDeps, request, null),
});
const server = createServer((req, res) => (req.url?.startsWith(SSE_PATH) ? void yoga(req, res) : app.listener(req, res)));
server.listen(0, "127.0.0.1", async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await app.start({ url });
  console.log(`service with yoga's graphql-sse plugin listening on ${url}`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => void app.stop().then(() => database.close()).then(() => process.exit(0)));
});
