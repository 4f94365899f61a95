// The invoices search as a merchant types it (#27 item 8, src/modules/invoices/invoice-search.ts),
// through GraphQL on a real database: each kind of match, several words, the scope, the list's
// filters and paging, a customer renamed after the invoice, and input taken literally or refused.
import { beforeAll, describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const stranger = await t.createMerchant();

interface Created {
  id: string;
  number: string;
}

async function createInvoice(body: Record<string, unknown>, key = merchant.sandboxKey): Promise<Created> {
  const res = await t.api("POST", "/invoices", { key, body });
  expect(res.status, res.raw).toBe(201);
  t.clock.advance(1000); // distinct creation times: the expected order is the creation order
  return { id: res.body.id, number: res.body.invoice_number };
}

async function search(text: string, args = "", key = merchant.sandboxKey) {
  const res = await t.graphql(
    `query($s: String) { invoices(search: $s ${args}) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`,
    { s: text },
    key,
  );
  return {
    ids: (res.body.data?.invoices.edges.map((e: { node: { id: string } }) => e.node.id) ?? []) as string[],
    next: res.body.data?.invoices.pageInfo as { hasNextPage: boolean; endCursor: string } | undefined,
    errors: res.body.errors as { message: string }[] | undefined,
  };
}
const found = async (text: string, args?: string, key?: string) => {
  const result = await search(text, args, key);
  expect(result.errors, text).toBeUndefined();
  return result.ids;
};

let design: Created, retainer: Created, hosting: Created, other: Created;
let customerId: string;

describe("invoices(search:)", () => {
  beforeAll(async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Bruno Díaz", email: "bruno@wayne.example" } });
    customerId = customer.body.id;
    design = await createInvoice({ amount: "120.5", description: "Design workshop", metadata: { po: "PO-55123" } });
    retainer = await createInvoice({ customer_id: customerId, items: [{ description: "Monthly retainer 100%", quantity: "2", unit_amount: "50" }] });
    hosting = await createInvoice({ customer_id: customerId, amount: "7", description: "Hosting, leaf_pack" });
    other = await createInvoice({ amount: "120.5", description: "Design workshop" }, stranger.sandboxKey);
  });

  it("finds a part of the id (with or without inv_), the number, the description, a line item and a metadata value", async () => {
    for (const text of [design.id, design.id.slice(0, 12), design.id.slice(4, 14).toUpperCase(), design.id.slice(-6)]) {
      expect(await found(text), text).toEqual([design.id]);
    }
    expect(await found(retainer.number)).toEqual([retainer.id]);
    expect(await found("WORKSHOP")).toEqual([design.id]);
    expect(await found("retainer")).toEqual([retainer.id]);
    expect(await found("55123")).toEqual([design.id]);
  });

  it("finds the customer's current name or email, and the amount as typed", async () => {
    expect(await found("bruno")).toEqual([hosting.id, retainer.id]);
    expect(await found("díaz")).toEqual([hosting.id, retainer.id]);
    expect(await found("wayne.example")).toEqual([hosting.id, retainer.id]);
    await t.api("POST", `/customers/${customerId}`, { key: merchant.sandboxKey, body: { name: "Selina Kyle" } });
    expect(await found("selina")).toEqual([hosting.id, retainer.id]);
    expect(await found("díaz")).toEqual([]);
    expect(await found("120.5")).toEqual([design.id]);
    expect(await found("120.5000000")).toEqual([design.id]);
    expect(await found("100")).toEqual([retainer.id]);
    expect(await found("120.55")).toEqual([]);
  });

  it("needs every word, keeps the other filters and the scope, and pages", async () => {
    expect(await found("selina hosting")).toEqual([hosting.id]);
    expect(await found("selina design")).toEqual([]);
    expect(await found("design")).not.toContain(other.id);
    expect(await found("design", "", stranger.sandboxKey)).toEqual([other.id]);
    expect(await found("design", "", merchant.liveKey)).toEqual([]);
    expect(await found("selina", ", status: draft")).toEqual([hosting.id, retainer.id]);
    expect(await found("selina", ", status: open")).toEqual([]);
    expect(await found("wayne", `, customerId: "${customerId}"`)).toEqual([hosting.id, retainer.id]);
    const first = await search("selina", ", first: 1");
    expect(first.ids).toEqual([hosting.id]);
    expect(first.next!.hasNextPage).toBe(true);
    expect(await found("selina", `, first: 1, after: "${first.next!.endCursor}"`)).toEqual([retainer.id]);
  });

  it("takes %, _ and quotes literally, and refuses a search too long to be one", async () => {
    expect(await found("100%")).toEqual([retainer.id]);
    expect(await found("leaf_pack")).toEqual([hosting.id]);
    expect(await found("%")).toEqual([retainer.id]);
    for (const text of ["e%s", "n_w", "'; DROP TABLE x; --", "\\"]) expect(await found(text), text).toEqual([]);
    expect((await search("a".repeat(500))).errors?.[0]?.message).toBe("Search: must be at most 200 characters");
    expect((await search("a b c d e f g h i")).errors?.[0]?.message).toBe("Search: must have at most 8 words");
  });
});
