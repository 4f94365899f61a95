// The SEP-7 URI as an SVG QR code, for mobile wallets; the encoder is loaded on first use.
export async function qrSvg(text: string): Promise<string> {
  const { toString } = await import("qrcode");
  return toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } });
}
