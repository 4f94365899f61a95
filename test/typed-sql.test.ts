// Typed SQL (Kysely, src/db/typed-sql.ts) must read every table exactly as Prisma does, and what it
// writes must read back through Prisma as written: one row per model with every column set (the
// largest BigInt, a boolean, dates with milliseconds), made from Prisma's own datamodel, so a model
// or column added later is covered without touching this test.
import { expect, it } from "vitest";
import { directSql, typedSql } from "../src/db/client.ts";
import { getDatamodel } from "../src/generated/pothos-types.ts";
import type { DB } from "../src/db/typed-sql.ts";
import { startTestApp } from "./support/test-app.ts";

const t = await startTestApp();
const { models } = getDatamodel().datamodel;
type Model = keyof typeof models;
type Field = (typeof models)[Model]["fields"][number];

const valueOf = (model: string, field: Field, salt: number): unknown => {
  switch (field.type) {
    case "String":
      return `${model}.${field.name}.${salt}`;
    case "Int":
      return 2_147_483_000 + salt;
    case "BigInt":
      return 9_223_372_036_854_775_807n - BigInt(salt);
    case "Boolean":
      return salt % 2 === 0;
    case "DateTime":
      return new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678 + salt));
    default:
      throw new Error(`no test value for ${field.type}`);
  }
};

/** Models in an order where every row's foreign keys name rows made before it. */
function creationOrder(): Model[] {
  const done: Model[] = [];
  const remaining = new Set(Object.keys(models) as Model[]);
  while (remaining.size) {
    const ready = [...remaining].filter((name) =>
      models[name]!.fields.every((f) => f.kind !== "object" || !f.relationFromFields?.length || done.includes(f.type as Model)),
    );
    if (!ready.length) throw new Error(`relation cycle among ${[...remaining].join(", ")}`);
    for (const name of ready) (done.push(name), remaining.delete(name));
  }
  return done;
}

/** Every scalar set; foreign keys name the `id` of the referenced model's row. */
function rowOf(model: Model, salt: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const fields = models[model]!.fields;
  for (const field of fields) if (field.kind === "scalar") row[field.name] = valueOf(model, field, salt);
  for (const relation of fields) {
    if (relation.kind !== "object" || !relation.relationFromFields?.length) continue;
    row[relation.relationFromFields[0]!] = `${relation.type}.id.${salt}`;
  }
  return row;
}

const delegate = (model: Model) =>
  (t.database.db as unknown as Record<string, { create(args: object): Promise<unknown>; findMany(): Promise<Record<string, unknown>[]> }>)[
    model[0]!.toLowerCase() + model.slice(1)
  ]!;
const stable = (rows: Record<string, unknown>[]) =>
  [...rows].sort((a, b) => JSON.stringify(a, (_, v) => (typeof v === "bigint" ? `${v}` : v)).localeCompare(JSON.stringify(b, (_, v) => (typeof v === "bigint" ? `${v}` : v))));

it("reads every table exactly as Prisma does", async () => {
  for (const model of creationOrder()) await delegate(model).create({ data: rowOf(model, 1) });
  const sql = typedSql(t.database.db);
  for (const model of Object.keys(models) as Model[]) {
    const viaPrisma = await delegate(model).findMany();
    const viaTyped = await sql.all(sql.q.selectFrom(model as keyof DB).selectAll());
    expect(viaPrisma).toHaveLength(1);
    expect(stable(viaTyped as Record<string, unknown>[]), model).toEqual(stable(viaPrisma));
  }
});

it("writes every table so that Prisma reads back what was written", async () => {
  const sql = typedSql(t.database.db);
  const written = new Map<Model, Record<string, unknown>>();
  const steps = creationOrder().map((model) => {
    const row = rowOf(model, 2);
    written.set(model, row);
    return sql.statement(sql.q.insertInto(model as keyof DB).values(row as never));
  });
  await directSql(t.database.db).batch(steps);
  for (const [model, row] of written) {
    const rows = await delegate(model).findMany();
    expect(rows, model).toContainEqual(row);
  }
});

it("a prepared query binds each call's parameters by name beside the constants it was built with", async () => {
  const { preparedQuery } = await import("../src/db/typed-sql.ts");
  const sql = typedSql(t.database.db);
  const ofOrganization = preparedQuery((q, p: { organizationId: string; newerThan: Date }) =>
    q.selectFrom("ApiKey").selectAll().where("organizationId", "=", p.organizationId).where("environment", "=", "ApiKey.environment.1").where("createdAt", ">", p.newerThan),
  );
  const before = new Date(Date.UTC(2026, 0, 1));
  const [row] = await ofOrganization.all(sql, { organizationId: "Organization.id.1", newerThan: before });
  expect(row).toEqual(await t.database.db.apiKey.findFirst({ where: { organizationId: "Organization.id.1", environment: "ApiKey.environment.1" } }));
  expect(await ofOrganization.first(sql, { organizationId: "Organization.id.1", newerThan: new Date(Date.UTC(2027, 0, 1)) })).toBeNull();
  expect(await ofOrganization.first(sql, { organizationId: "Organization.id.2", newerThan: before })).toBeNull();
});

it("a prepared insert of everyColumn writes a whole row of every table as Prisma reads it back", async () => {
  const { everyColumn, preparedQuery } = await import("../src/db/typed-sql.ts");
  const sql = typedSql(t.database.db);
  const written = new Map<Model, Record<string, unknown>>();
  const steps = creationOrder().map((model) => {
    const row = rowOf(model, 3);
    written.set(model, row);
    const table = model as keyof DB;
    return preparedQuery((q, p: Record<string, unknown>) => q.insertInto(table).values(everyColumn(table, p) as never)).statement(sql, row);
  });
  await directSql(t.database.db).batch(steps);
  for (const [model, row] of written) expect(await delegate(model).findMany(), model).toContainEqual(row);
});

it("inListParam matches the rows of a list parameter of any length with one statement text, and rowsOf reads what an update returned", async () => {
  const { inListParam, preparedQuery } = await import("../src/db/typed-sql.ts");
  const sql = typedSql(t.database.db);
  const ofIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("Organization").selectAll().where(inListParam(q, "id", p.ids)).orderBy("id"));
  const ids = async (list: string[]) => (await ofIds.all(sql, { ids: sql.direct.listParam(list) })).map((row) => row.id);
  expect(await ids(["Organization.id.1"])).toEqual(["Organization.id.1"]);
  expect(await ids(["Organization.id.3", "missing", "Organization.id.1"])).toEqual(["Organization.id.1", "Organization.id.3"]);
  expect(await ids([])).toEqual([]);
  expect(ofIds.statement(sql, { ids: sql.direct.listParam(["a"]) }).text).toBe(ofIds.statement(sql, { ids: sql.direct.listParam(["a", "b", "c"]) }).text);

  const rename = preparedQuery((q, p: { id: string; name: string }) => q.updateTable("Organization").set({ name: p.name }).where("id", "=", p.id).returningAll());
  const [result] = await directSql(t.database.db).batch([rename.statement(sql, { id: "Organization.id.1", name: "Renamed" })]);
  expect(rename.rowsOf(sql, result!.rows)).toEqual([await t.database.db.organization.findUnique({ where: { id: "Organization.id.1" } })]);
});
