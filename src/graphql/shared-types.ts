// GraphQL types several resources use: assets and their input.
import { type Scope, inScope } from "../context.ts";
import type { Asset } from "../shared/assets.ts";
import { builder } from "./builder.ts";

export const AssetRef = builder.objectRef<Asset>("AssetRef").implement({
  fields: (t) => ({
    assetCode: t.exposeString("code"),
    issuerAddress: t.exposeString("issuer", { nullable: true }),
  }),
});

export const AssetRefInput = builder.inputType("AssetRefInput", {
  fields: (t) => ({
    assetCode: t.string({ required: true }),
    issuerAddress: t.string(),
  }),
});

/** GraphQL's camelCase asset to the snake_case shape the shared zod schemas parse. */
export const assetInput = (a: { assetCode: string; issuerAddress?: string | null }) => ({
  asset_code: a.assetCode,
  issuer_address: a.issuerAddress ?? null,
});

/** Drops GraphQL's absent (undefined) arguments so zod sees them as not given. */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Connections list newest first, as the REST lists do (src/shared/pagination.ts). */
export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/** The caller's rows, with the status and customer filters the payment-like lists share. */
export function statusAndCustomerFilter(scope: Scope, args: { status?: string | null; customerId?: string | null }) {
  return {
    ...inScope(scope),
    ...(args.status && { status: args.status }),
    ...(args.customerId && { customerId: args.customerId }),
  };
}
