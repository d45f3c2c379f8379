import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { brokenLinks, headingAnchor } from "./helpers/doc-links.js";
import { tempDir } from "./helpers/tmp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("the links of README.md, docs/ and the environments' READMEs", () => {
  test("every relative link of README.md, docs/*.md and the environments' READMEs names a file that exists, and an anchor a heading of it", () => {
    const docs = readdirSync(path.join(ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => path.join(ROOT, "docs", name));
    const environments = readdirSync(path.join(ROOT, "environments"))
      .map((name) => path.join(ROOT, "environments", name, "README.md"))
      .filter((file) => existsSync(file));
    expect(docs.length).toBeGreaterThan(5);
    expect(environments.length).toBeGreaterThan(3);
    expect([path.join(ROOT, "README.md"), ...docs, ...environments].flatMap(brokenLinks)).toEqual([]);
  });

  test("a link to a missing file, and one to a missing heading, are found; code blocks and URLs are not links", () => {
    const root = tempDir();
    mkdirSync(path.join(root, "docs"));
    writeFileSync(path.join(root, "docs", "runs.md"), "# Runs\n\n## Scores under contention\n\ntext\n");
    const readme = path.join(root, "README.md");
    writeFileSync(
      readme,
      [
        "[runs](docs/runs.md), [contention](docs/runs.md#scores-under-contention), [here](#top), [paper](https://arxiv.org/abs/2411.15114)",
        "# Top",
        "[gone](docs/gone.md) and [stale](docs/runs.md#the-scoring-protocol) and ![image](docs/images/missing.png)",
        "```sh",
        "echo [not a link](nowhere.md)",
        "```",
      ].join("\n"),
    );
    const broken = brokenLinks(readme);
    expect(broken).toHaveLength(3);
    expect(broken[0]).toContain("[gone](docs/gone.md): no such file");
    expect(broken[1]).toContain("runs.md has no heading with the anchor #the-scoring-protocol");
    expect(broken[2]).toContain("[image](docs/images/missing.png): no such file");
  });

  test("headingAnchor() spells GitHub's anchors", () => {
    expect(headingAnchor("Scores under contention")).toBe("scores-under-contention");
    expect(headingAnchor("Tests and the benchmark")).toBe("tests-and-the-benchmark");
    expect(headingAnchor("`rebench serve`: the pages")).toBe("rebench-serve-the-pages");
  });
});
