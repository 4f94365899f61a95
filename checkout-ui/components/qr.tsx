// A QR code of a URL, drawn as SVG by the checkout's own helper (loaded only when shown).
import { useEffect, useState } from "preact/hooks";
import { qrSvg } from "../src/qr.ts";

export function QrCode(props: { value: string; label: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => void qrSvg(props.value).then(setSvg), [props.value]);
  if (!svg) return null;
  // qrcode's own SVG output (no user text inside it): an image with a name.
  return <img class="qr" alt={props.label} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} width={160} height={160} />;
}
