// A browser wallet through the Freighter API, loaded only when the payer asks for it.
export interface Wallet {
  address: string;
  sign(xdr: string, networkPassphrase: string): Promise<string>;
}

export async function connectFreighter(): Promise<Wallet> {
  const freighter = await import("@stellar/freighter-api");
  const connected = await freighter.isConnected();
  if (connected.error || !connected.isConnected) {
    throw new Error("Freighter was not found. Install the Freighter extension, or pay from a mobile wallet below.");
  }
  const access = await freighter.requestAccess();
  if (access.error || !access.address) throw new Error(access.error?.message ?? "The wallet did not share an address.");
  return {
    address: access.address,
    async sign(xdr, networkPassphrase) {
      const signed = await freighter.signTransaction(xdr, { networkPassphrase, address: access.address });
      if (signed.error || !signed.signedTxXdr) throw new Error(signed.error?.message ?? "The wallet declined to sign.");
      return signed.signedTxXdr;
    },
  };
}
