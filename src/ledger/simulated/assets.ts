// Asset helpers around the SDK's Asset class: a stable map key, Horizon's field layout, and the
// textual forms Horizon accepts in query strings.
import { Asset, MuxedAccount, StrKey } from "@stellar/stellar-sdk";

/** "native" or "CODE:ISSUER": the key of trustlines and order-book pairs. */
export const assetKey = (asset: Asset): string => (asset.isNative() ? "native" : `${asset.getCode()}:${asset.getIssuer()}`);

export const sameAsset = (a: Asset, b: Asset): boolean => assetKey(a) === assetKey(b);

/**
 * Horizon's flat asset fields, e.g. prefix "source_" -> source_asset_type/code/issuer. Native assets
 * carry only the type, as Horizon omits code and issuer for XLM.
 */
export function assetFields(asset: Asset, prefix = ""): Record<string, string> {
  if (asset.isNative()) return { [`${prefix}asset_type`]: "native" };
  return {
    [`${prefix}asset_type`]: asset.getAssetType(),
    [`${prefix}asset_code`]: asset.getCode(),
    [`${prefix}asset_issuer`]: asset.getIssuer(),
  };
}

export class InvalidAssetError extends Error {}

/** Parses "native", "XLM" or "CODE:ISSUER" (the canonical form Horizon's path endpoints take). */
export function parseCanonicalAsset(text: string): Asset {
  if (text === "native" || text === "XLM") return Asset.native();
  const [code, issuer, ...rest] = text.split(":");
  if (!code || !issuer || rest.length > 0) throw new InvalidAssetError(`invalid asset: ${text}`);
  return makeAsset(code, issuer);
}

/** Parses Horizon's (asset_type, asset_code, asset_issuer) query triple. */
export function parseAssetTriple(type: string | null, code: string | null, issuer: string | null): Asset {
  if (type === "native") return Asset.native();
  if (type !== "credit_alphanum4" && type !== "credit_alphanum12") throw new InvalidAssetError(`invalid asset type: ${type}`);
  const asset = makeAsset(code ?? "", issuer ?? "");
  if (asset.getAssetType() !== type) throw new InvalidAssetError(`asset code ${code} does not match type ${type}`);
  return asset;
}

function makeAsset(code: string, issuer: string): Asset {
  try {
    return new Asset(code, issuer);
  } catch (error) {
    throw new InvalidAssetError(error instanceof Error ? error.message : String(error));
  }
}

/** An account reference as a transaction carries it: the G account plus, for M addresses, the mux id. */
export interface AccountRef {
  /** The underlying G... account that holds balances and signs. */
  account: string;
  /** The M... address exactly as written in the transaction, if it was muxed. */
  muxed?: string;
  muxedId?: string;
}

/** Splits a G... or M... address; balances always live on the G account. */
export function accountRef(address: string): AccountRef {
  if (address.startsWith("M")) {
    const muxed = MuxedAccount.fromAddress(address, "0");
    return { account: muxed.baseAccount().accountId(), muxed: address, muxedId: muxed.id() };
  }
  return { account: address };
}

export const isAccountId = (value: string): boolean => StrKey.isValidEd25519PublicKey(value);
