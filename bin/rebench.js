#!/usr/bin/env node
// The `rebench` binary: runs the compiled CLI (npm run build). During development,
// `npx tsx src/cli/main.ts` runs the sources directly.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
if (!existsSync(compiled)) {
  process.stderr.write("rebench is not built yet: run `npm run build` (or scripts/bootstrap) in the rebench checkout.\n");
  process.exit(78);
}
const { main, exitQuietlyOnClosedPipe } = await import(compiled);
exitQuietlyOnClosedPipe();
process.exitCode = await main(process.argv);
