/**
 * @module
 * `rebench assets build|list`: build the offline corpus, tokenizers, token files and pretrained GPTs the
 * environments need (content-keyed, so a second build is instant), and list what is built.
 */
import type { Command } from "commander";
import { type BuiltAsset, buildAssets, listAssets, readAssetCatalog } from "../../assets/index.js";
import { ASSET_VARIANTS, AssetVariant, parseWith } from "../../core/index.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatDuration, formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { formatTable } from "../table.js";

export function registerAssets(program: Command, io: Io): void {
  const assets = program.command("assets").description(COMMAND_SUMMARIES.assets);

  assets
    .command("build")
    .description("build the assets of a variant (or the named ones) that are missing or stale")
    .option("--variant <variant>", `which set: ${ASSET_VARIANTS.join(", ")} (tiny: seconds, for tests)`, "mini")
    .option("--only <names>", "only these assets and what they need, comma-separated (see assets list --catalog)")
    .option("--jobs <n>", "CPU model builds at once, one thread each", (v) => Number.parseInt(v, 10))
    .option("--json", "print the outcome as JSON")
    .addHelpText(
      "after",
      "\nAssets go to $REBENCH_HOME/assets (default ~/.rebench/assets), keyed by a hash of all their inputs.\n" +
        "Examples:\n  rebench assets build\n  rebench assets build --variant gpu\n  rebench assets build --only tokens-gpt2",
    )
    .action(async (options: { variant: string; only?: string; jobs?: number; json?: boolean }) => {
      const variant = parseWith(AssetVariant, options.variant, "--variant");
      const only = options.only
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const outcome = await buildAssets({
        variant,
        ...(only ? { only } : {}),
        ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
        onProgress: (line) => io.err(`${line}\n`),
      });
      if (options.json) return printJson(io, outcome);
      io.out(
        formatTable(outcome.assets, [
          { header: "ASSET", value: (a) => a.name },
          { header: "KIND", value: (a) => a.kind },
          { header: "STATUS", value: (a) => a.status },
          { header: "SECONDS", value: (a) => a.seconds.toFixed(1), align: "right" },
          { header: "KEY", value: (a) => a.key.slice(0, 12) },
          { header: "PATH", value: (a) => a.path },
        ]),
      );
      io.out(`total ${formatDuration(outcome.seconds ?? 0)}\n`);
    });

  assets
    .command("list")
    .description("list the built assets: size, key, build time; --catalog lists every buildable asset")
    .option("--json", "print JSON")
    .option("--catalog", "list every asset the builder knows (built or not) with its variants")
    .addHelpText("after", "\nExamples:\n  rebench assets list\n  rebench assets list --json\n  rebench assets list --catalog")
    .action(async (options: { json?: boolean; catalog?: boolean }) => {
      if (options.catalog) return printCatalog(io, options.json === true);
      const listing = listAssets();
      if (options.json) {
        return printJson(io, {
          home: listing.home,
          assets: listing.assets.map((a) => ({ ...a.record, path: a.path, bytes: a.bytes })),
          broken: listing.broken,
        });
      }
      for (const b of listing.broken) io.err(`rebench: skipping ${b.name}: ${b.reason}\n`);
      if (listing.assets.length === 0) {
        return io.out(`no assets built in ${listing.home}\n  build them with: rebench assets build\n`);
      }
      io.out(
        formatTable(listing.assets, [
          { header: "ASSET", value: (a) => a.record.name },
          { header: "KIND", value: (a) => a.record.kind },
          { header: "SIZE", value: (a) => formatBytes(a.bytes), align: "right" },
          { header: "KEY", value: (a) => a.record.key.slice(0, 12) },
          { header: "BUILT", value: (a) => a.record.builtAt },
          { header: "BUILD", value: (a) => formatDuration(a.record.buildSeconds), align: "right" },
          { header: "NOTE", value: note },
        ]),
      );
    });
}

async function printCatalog(io: Io, json: boolean): Promise<void> {
  const catalog = await readAssetCatalog();
  if (json) return printJson(io, catalog);
  io.out(
    formatTable(catalog, [
      { header: "ASSET", value: (a) => a.name },
      { header: "KIND", value: (a) => a.kind },
      { header: "VARIANTS", value: (a) => a.variants.join(",") || "-" },
      { header: "NEEDS", value: (a) => a.deps.join(",") || "-" },
      { header: "DESCRIPTION", value: (a) => a.description },
    ]),
  );
}

/** A one-line summary per kind: documents, tokens, or losses. */
function note(asset: BuiltAsset): string {
  const s = asset.record.summary as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  switch (asset.record.kind) {
    case "model":
      return `${formatNumber((num(s.parameters) ?? 0) / 1e6, 2)}M params, val loss ${formatNumber(num(s.final_val_loss))}`;
    case "tokens": {
      const tokens = (s.tokens ?? {}) as Record<string, unknown>;
      return `train ${formatNumber((num(tokens.train) ?? 0) / 1e6, 2)}M tokens, vocab ${formatNumber(num(s.vocab_size))}`;
    }
    case "tokenizer":
      return `vocab ${formatNumber(num(s.vocab_size))}`;
    case "corpus": {
      const splits = (s.splits ?? {}) as Record<string, { documents?: number }>;
      return `${Object.entries(splits)
        .map(([k, v]) => `${k} ${v.documents ?? 0}`)
        .join(", ")} documents`;
    }
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
