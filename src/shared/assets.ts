import { StrKey } from "@stellar/stellar-sdk";

/** An asset as the domain holds it: issuer null for native XLM. */
export interface Asset {
  code: string;
  issuer: string | null;
}

export const XLM: Asset = { code: "XLM", issuer: null };

export const isNative = (asset: Asset) => asset.code === "XLM" && asset.issuer === null;
export const sameAsset = (a: Asset, b: Asset) => a.code === b.code && a.issuer === b.issuer;
export const assetKey = (asset: Asset) => (asset.issuer ? `${asset.code}:${asset.issuer}` : asset.code);
export const isStellarAddress = (value: string) => StrKey.isValidEd25519PublicKey(value);

/** The spec's AssetRef. */
export const assetRef = (asset: Asset) => ({ asset_code: asset.code, issuer_address: asset.issuer });

export const parseAssetList = (json: string): Asset[] => JSON.parse(json) as Asset[];
export const serializeAssetList = (assets: Asset[]): string =>
  JSON.stringify(assets.map((a) => ({ code: a.code, issuer: a.issuer })));
