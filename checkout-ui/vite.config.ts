// The hosted checkout, built into checkout-ui/dist: index.html (served for /c/<id> and /i/<id>) and
// hashed files under /c/assets/. No Stellar SDK: the server prepares transactions, the wallet signs.
import { defineConfig } from "vite";

export default defineConfig({
  root: new URL(".", import.meta.url).pathname,
  base: "/c/",
  logLevel: "warn",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2020",
    reportCompressedSize: false,
  },
});
