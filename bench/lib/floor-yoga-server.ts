// The least GraphQL `payment(id)` can cost through graphql-yoga: yoga with its defaults and no
// plugin of ours (no gate, scopes, bounds or error mapping), a schema of one query answered from
// the API key and payment read with prepared statements, as bench/lib/floor-server.ts does for REST.
// Run as its own process on the service's SQLite file (DB_PATH).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSchema, createYoga } from "graphql-yoga";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";
import { keyOwner, paymentById } from "./floor-reads.ts";

const schema = createSchema<{ request: Request }>({
  typeDefs: /* GraphQL */ `
    scalar JSON
    type Payment { id: ID! amount: String! status: String! description: String metadata: JSON checkoutUrl: String! createdAt: String! expiresAt: String }
    type Query { payment(id: ID!): Payment }
  `,
  resolvers: {
    Query: {
      payment(_: unknown, { id }: { id: string }, { request }: { request: Request }) {
        const found = keyOwner(request.headers.get("authorization")) ? paymentById(id) : null;
        if (!found) return null;
        const json = paymentJson(found, "http://localhost");
        return { ...json, checkoutUrl: json.checkout_url, createdAt: json.created_at, expiresAt: json.expires_at };
      },
    },
  },
});

const server = createServer(createYoga({ schema, logging: false, landingPage: false }));
server.listen(0, "127.0.0.1", () => {
  console.log(`yoga floor server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
