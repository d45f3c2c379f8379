#!/usr/bin/env node
// The `rebench` binary: runs the compiled CLI (npm run build): main.bundle.js, main.js with commander inside
// (scripts/bundle-cli.mjs), or main.js itself where there is no bundle or REBENCH_NO_BUNDLE=1. During
// development, `npx tsx src/cli/main.ts` runs the sources directly.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
if (!existsSync(compiled)) {
  process.stderr.write("rebench is not built yet: run `npm run build` (or scripts/bootstrap) in the rebench checkout.\n");
  process.exit(78);
}
const bundle = fileURLToPath(new URL("../dist/src/cli/main.bundle.js", import.meta.url));
const entry = !process.env.REBENCH_NO_BUNDLE && existsSync(bundle) ? bundle : compiled;
const { main, exitQuietlyOnClosedPipe } = await import(entry);
exitQuietlyOnClosedPipe();
process.exitCode = await main(process.argv);
