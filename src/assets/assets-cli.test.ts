import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { rebench } from "../../test/helpers/cli.js";
import { tempDir } from "../../test/helpers/tmp.js";

// The `tiny` variant builds in seconds from the real Debian sources, through the real Python builder.
describe("rebench assets", () => {
  const home = tempDir("rebench-assets-");
  beforeAll(() => {
    process.env.REBENCH_HOME = home;
  });

  test("assets build --variant tiny builds every tiny asset, with progress on stderr", async () => {
    const result = await rebench("assets", "build", "--variant", "tiny");
    expect(result.stderr).toContain("[tiny] step 30/30");
    expect(result.code).toBe(0);
    for (const name of ["corpus-tiny", "corpus-tiny-keyed", "tokenizer-bpe512-tiny", "tokens-bpe512-tiny", "tiny"]) {
      expect(result.stdout).toMatch(new RegExp(`${name}\\s+\\w+\\s+built`));
    }
  });

  test("a second build finds everything current", async () => {
    const result = await rebench("assets", "build", "--variant", "tiny", "--json");
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { assets: { status: string }[] };
    expect(outcome.assets.map((a) => a.status)).toEqual(["cached", "cached", "cached", "cached", "cached"]);
  });

  test("assets list --json shows records with sizes, hashes and build times", async () => {
    const result = await rebench("assets", "list", "--json");
    expect(result.code).toBe(0);
    const listing = JSON.parse(result.stdout) as {
      assets: { name: string; bytes: number; key: string; buildSeconds: number; files: Record<string, { sha256: string }> }[];
    };
    const model = listing.assets.find((a) => a.name === "tiny");
    expect(model?.bytes).toBeGreaterThan(1000);
    expect(model?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(model?.files ?? {}).sort()).toEqual(["losses.json", "model.pt"]);
    const record = JSON.parse(readFileSync(path.join(home, "assets", "tiny", "asset.json"), "utf8")) as { key: string };
    expect(record.key).toBe(model?.key);
    const table = await rebench("assets", "list");
    expect(table.stdout).toMatch(/tiny\s+model/);
  });

  test("keyed assets are built from the home's installation key: another key builds other ones, the unkeyed corpus stays", async () => {
    const keyOf = (name: string) => (JSON.parse(readFileSync(path.join(home, "assets", name, "asset.json"), "utf8")) as { key: string }).key;
    const before = { corpus: keyOf("corpus-tiny"), keyed: keyOf("corpus-tiny-keyed") };
    const previous = process.env.REBENCH_INSTALLATION_KEY;
    process.env.REBENCH_INSTALLATION_KEY = "0123456789abcdef".repeat(4);
    try {
      const result = await rebench("assets", "build", "--only", "corpus-tiny-keyed", "--json");
      expect(result.code, result.stderr).toBe(0);
      const outcome = JSON.parse(result.stdout) as { assets: { name: string; status: string }[] };
      expect(outcome.assets.map((a) => [a.name, a.status])).toEqual([
        ["corpus-tiny", "cached"],
        ["corpus-tiny-keyed", "built"],
      ]);
      expect(keyOf("corpus-tiny")).toBe(before.corpus);
      expect(keyOf("corpus-tiny-keyed")).not.toBe(before.keyed);
    } finally {
      if (previous === undefined) delete process.env.REBENCH_INSTALLATION_KEY;
      else process.env.REBENCH_INSTALLATION_KEY = previous;
    }
  });

  test("an unknown asset name is 'not found' and lists the known ones", async () => {
    const result = await rebench("assets", "build", "--only", "gpt5-huge");
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("unknown asset(s): gpt5-huge");
    expect(result.stderr).toContain("mini-small");
  });

  test("a bad variant is a usage error", async () => {
    const result = await rebench("assets", "build", "--variant", "huge");
    expect(result.code).toBe(2);
  });

  test("assets list --catalog names every size in one table", async () => {
    const result = await rebench("assets", "list", "--catalog", "--json");
    const names = (JSON.parse(result.stdout) as { name: string }[]).map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(["mini-small", "mini-large", "gpu-small", "gpu-large", "tiny"]));
  });
});
