import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { get_encoding } from "tiktoken";
import { beforeAll, expect, test } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { buildAssets } from "./build-assets.js";
import { pythonExecutable, repoRoot } from "./python.js";

// The GPT-2 ranks travel from the npm package to Python; both sides must give the same ids.
const home = tempDir("rebench-gpt2-");
const TEXTS = [
  "Hello world",
  "In the beginning God created the heaven and the earth.",
  "  leading spaces, trailing spaces   \n\n\ttabs\r\nand CRLF",
  "It's we'll they've I'd you're DON'T",
  "numbers 1234567890 3.14159 -42 1e-10 0x1F",
  "unicode: naïve café 日本語 Ελληνικά עברית 🙂👍🏽 —–… «»",
  "code: def f(x):\n    return x**2  # square\n",
  "<|endoftext|> is plain text here",
  readFileSync(path.join(repoRoot(), "README.md"), "utf8"),
];

beforeAll(async () => {
  await buildAssets({ only: ["tokenizer-gpt2"], home });
}, 120_000);

test("Python's tiktoken with the extracted ranks gives the npm tiktoken's GPT-2 ids", () => {
  const encoding = get_encoding("gpt2");
  const expected = TEXTS.map((t) => Array.from(encoding.encode(t, [], [])));
  encoding.free();
  const dir = tempDir("rebench-gpt2-io-");
  writeFileSync(path.join(dir, "texts.json"), JSON.stringify(TEXTS));
  const script = [
    "import json, sys",
    "from rebench_env.tokenizer import load_tokenizer",
    "tok = load_tokenizer('tokenizer-gpt2', sys.argv[1])",
    "texts = json.load(open(sys.argv[2]))",
    "json.dump({'ids': [tok.encode(t) for t in texts], 'vocab': tok.vocab_size, 'eot': tok.eot_id,",
    "           'round_trip': all(tok.decode(tok.encode(t)) == t for t in texts)}, open(sys.argv[3], 'w'))",
  ].join("\n");
  const out = path.join(dir, "ids.json");
  execFileSync(pythonExecutable(), ["-c", script, home, path.join(dir, "texts.json"), out]);
  const python = JSON.parse(readFileSync(out, "utf8")) as { ids: number[][]; vocab: number; eot: number; round_trip: boolean };
  expect(python.vocab).toBe(50257);
  expect(python.eot).toBe(50256);
  expect(python.round_trip).toBe(true);
  expect(python.ids[0]).toEqual([15496, 995]);
  expect(python.ids).toEqual(expected);
});
