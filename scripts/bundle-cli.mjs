#!/usr/bin/env node
// Two esbuild bundles of the compiled CLI (npm run build, after tsc), so that Node reads and compiles a few
// files instead of many (docs/analysis.md, "Speed"):
//
// - dist/src/cli/main.bundle.js: main.js with commander inside, every module of ours left outside (same folder,
//   so its relative imports and `import.meta.url` paths are main.js's). commander is CommonJS: imported from
//   ESM, Node 20 runs cjs-module-lexer over its seven files and wraps each, ~50 ms of every command's start-up
//   at a load of 1, close to Node's own; as one ESM file, nothing measurable. bin/rebench.js loads it where it exists.
// - dist/src/cli/report-bundle/report.js and the chunks that load only on demand (the store, the figure
//   renderers): `rebench report`'s module graph, ~170 files (our modules and zod's), which was half of the
//   report's CPU time. src/cli/main.ts loads it where it exists.
//
// REBENCH_NO_BUNDLE=1: both are skipped, and the modules tsc wrote run (as `tsx src/cli/main.ts` does);
// test/report-bundle.test.ts checks that both print the same bytes. Left outside the report bundle: the npm
// packages other than zod (native modules; commander is only ever imported by main.js), and
// src/core/errors.ts, so that main.js's `instanceof RebenchError` holds for the errors the bundle throws.
import { readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const target = path.join(root, "dist", "src", "cli", "report-bundle");
const errors = path.join(root, "src", "core", "errors.ts");
// Loaded by a report on Inspect logs that rebench did not write (their environments' constants): the
// environments read files beside their modules, so the registry stays tsc's module, outside the bundle.
const registry = path.join(root, "src", "environments", "registry.ts");
const { dependencies } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const external = Object.keys(dependencies).filter((name) => name !== "zod");

const keepErrorsOutside = {
  name: "keep-errors-outside",
  setup(build) {
    build.onResolve({ filter: /\/(errors|registry)\.js$/ }, async (args) => {
      if (args.pluginData === "resolving") return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "resolving" });
      // From dist/src/cli/report-bundle/*.js, tsc's dist/src/core/errors.js (and dist/src/environments/registry.js).
      if (resolved.path === registry) return { path: "../../environments/registry.js", external: true };
      return resolved.path === errors ? { path: "../../core/errors.js", external: true } : resolved;
    });
  },
};

// zod's classic API re-exports its ~60 locales as `z.locales`, which rebench never uses (English is
// imported by zod's schemas directly): left out, they are 40% of the bundle that every report parses.
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: "zod-locales", namespace: "stub" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

// Built beside the target and moved into place, so a running CLI never sees half a bundle.
const out = `${target}.${process.pid}.tmp`;
rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { report: path.join(root, "src", "cli", "commands", "report.ts") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  plugins: [keepErrorsOutside, withoutZodLocales],
  chunkNames: "chunk-[hash]",
  sourcemap: "linked",
  logLevel: "warning",
});
swapInto(out, target);

// main.bundle.js: every relative import stays an import of tsc's module beside it; bare ones (commander) are inlined.
const mainOut = path.join(root, "dist", "src", "cli", `main.bundle.${process.pid}.tmp.js`);
await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, "dist", "src", "cli", "main.js")],
  outfile: mainOut,
  // commander's CommonJS requires Node's built-ins (node:events, ...): an ESM bundle needs a `require` for them.
  banner: { js: 'import { createRequire as __rebenchCreateRequire } from "node:module";\nconst require = __rebenchCreateRequire(import.meta.url);' },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [
    // commander requires node:child_process when it loads, for executable subcommands, which rebench has none
    // of: loading it costs 4-9 ms of every start-up here. Inside commander it becomes a proxy that requires it
    // on first use.
    {
      name: "lazy-child-process",
      setup: (b) => {
        b.onResolve({ filter: /^node:child_process$/ }, (args) =>
          args.importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`) ? { path: "lazy-child-process", namespace: "lazy" } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({
          contents: 'module.exports = new Proxy({}, { get: (_, key) => require("node:child_process")[key] });',
          loader: "js",
        }));
      },
    },
    {
      name: "ours-outside",
      setup: (b) =>
        b.onResolve({ filter: /^\./ }, (args) =>
          args.importer.includes(`${path.sep}node_modules${path.sep}`) ? undefined : { path: args.path, external: true },
        ),
    },
  ],
  logLevel: "warning",
});
swapInto(mainOut, path.join(root, "dist", "src", "cli", "main.bundle.js"));

/** Move a finished build into place (a folder or a file), so a running CLI never sees half of one. */
function swapInto(out, target) {
  const old = `${target}.${process.pid}.old`;
  // Two builds at once (test files each run `npm run build`) may swap in turn: retry when another's bundle
  // landed between our two renames.
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(target, old);
    } catch {
      // no earlier bundle
    }
    try {
      renameSync(out, target);
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
  rmSync(old, { recursive: true, force: true });
}
