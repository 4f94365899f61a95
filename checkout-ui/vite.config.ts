// Three pages built together, sharing chunks: the hosted checkout (index.html, served for /c/<id> and
// /i/<id>), the payer's refund claim page (claim/index.html, for /r/<id>) and the merchant dashboard
// (dashboard/index.html, served for /dashboard/*). Hashed files
// go under /c/assets/ for both. The checkout carries no Stellar SDK: the server prepares
// transactions, the wallet signs.
import { defineConfig } from "vite";

const root = new URL(".", import.meta.url).pathname;

export default defineConfig({
  root,
  base: "/c/",
  logLevel: "warn",
  // Preact's JSX runtime for the dashboard's .tsx files.
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2020",
    reportCompressedSize: false,
    rollupOptions: { input: { checkout: `${root}index.html`, claim: `${root}claim/index.html`, dashboard: `${root}dashboard/index.html` } },
  },
});
