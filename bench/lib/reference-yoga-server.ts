// graphql-yoga alone on the same reads as the plain reference (bench/reads.ts, #29): yoga with its
// defaults and no plugin, a schema of one query, `payment(id)`, answered from the key and payment
// rows read by bench/lib/reference-store.ts. Nothing of src/. DATABASE_URL and PUBLIC_URL as for
// bench/lib/reference-server.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSchema, createYoga } from "graphql-yoga";
import { amount } from "./reference-json.ts";
import { openReferenceStore } from "./reference-store.ts";

const store = openReferenceStore(process.env.DATABASE_URL!);
const publicUrl = process.env.PUBLIC_URL!;

const schema = createSchema<{ request: Request }>({
  typeDefs: /* GraphQL */ `
    scalar JSON
    type Payment { id: ID! amount: String! status: String! description: String metadata: JSON checkoutUrl: String! createdAt: String! expiresAt: String }
    type Query { payment(id: ID!): Payment }
  `,
  resolvers: {
    Query: {
      async payment(_: unknown, { id }: { id: string }, { request }: { request: Request }) {
        const owner = await store.keyOwner(request.headers.get("authorization"));
        const p = owner && (await store.paymentById(owner, id));
        if (!p) return null;
        return {
          id: p.id,
          amount: amount(p.amount),
          status: p.status,
          description: p.description,
          metadata: p.metadata == null ? null : JSON.parse(p.metadata),
          checkoutUrl: `${publicUrl}/c/${p.id}`,
          createdAt: p.createdAt.toISOString(),
          expiresAt: p.expiresAt?.toISOString() ?? null,
        };
      },
    },
  },
});

const server = createServer(createYoga({ schema, logging: false, landingPage: false }));
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`reference yoga server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
