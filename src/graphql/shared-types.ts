// GraphQL types several resources use: assets and their input, environments.
import { ENVIRONMENTS } from "../context.ts";
import type { Asset } from "../shared/assets.ts";
import { builder } from "./builder.ts";

export const EnvironmentEnum = builder.enumType("Environment", { values: ENVIRONMENTS });

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

type AssetArg = { assetCode: string; issuerAddress?: string | null };

/** GraphQL's camelCase asset to the snake_case shape the shared zod schemas parse. */
export const assetInput = (a: AssetArg) => ({
  asset_code: a.assetCode,
  issuer_address: a.issuerAddress ?? null,
});

/** A create input's settlementAsset and allowedAssets, snake_case; null and absent pass through for zod to judge. */
export const assetFieldsInput = (input: { settlementAsset?: AssetArg | null; allowedAssets?: AssetArg[] | null }) => ({
  settlement_asset: input.settlementAsset ? assetInput(input.settlementAsset) : input.settlementAsset,
  allowed_assets: input.allowedAssets?.map(assetInput) ?? input.allowedAssets,
});

/** Drops GraphQL's absent (undefined) arguments so zod sees them as not given. */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
