/**
 * @module
 * What fix_embedding's agent can read of data built from its hidden split's documents, in a run's real sandbox
 * (createRunSandbox on the `tiny` assets, the set-up as root): not the shipped `mini-chat` policy (trained on
 * the unkeyed corpus, so on 96% of the keyed hidden documents; bench/hidden_data/), not the Info manual of
 * the Python documentation (two thirds of a hidden section's words). Every environment's sandbox gets the
 * same system view (the Python library, the venv, the hide list), so restricted_mlm's is this one too.
 * Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { registerExtraEnvironment } from "../../src/environments/registry.js";
import { createRunSandbox } from "../../src/runs/materialize.js";
import { runEnvironment } from "../../src/runs/run-environment.js";
import { PYTHON_DATA_HIDDEN, runtimeFiles, SANDBOX_PATHS } from "../../src/sandbox/layout.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { rebench } from "../../test/helpers/cli.js";
import { testBackend } from "../../test/helpers/test-backend.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { defineFixEmbedding } from "./family.js";

const root = tempDir("rebench-fix-embedding-hidden-");
const NAME = "fix_embedding_hidden_data";
const SHIPPED = path.join(runtimeFiles().pythonDir, PYTHON_DATA_HIDDEN[0]);
/** python3.X-doc's Info manual on this host, if installed. */
const INFO_MANUAL = (existsSync("/usr/share/info") ? readdirSync("/usr/share/info") : [])
  .filter((n) => /^python3.*\.info\.gz$/.test(n))
  .map((n) => `/usr/share/info/${n}`)[0];
let sandbox: Sandbox;

/** Every file of the shipped assets on the host, with its size and sha256. */
function shippedFiles(): { file: string; bytes: number; sha256: string }[] {
  return readdirSync(SHIPPED, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(SHIPPED, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, bytes: statSync(file).size, sha256: createHash("sha256").update(readFileSync(file)).digest("hex") }));
}

beforeAll(async () => {
  process.env.REBENCH_HOME = path.join(root, "home");
  const built = await rebench("assets", "build", "--only", "tokens-bpe512-tiny,tiny,tiny-small");
  expect(built.code, built.stderr).toBe(0);
  registerExtraEnvironment(defineFixEmbedding({ name: NAME, miniProfile: "tiny" }));
  const env = runEnvironment({ environment: NAME, variant: "mini", task: "main" });
  sandbox = await createRunSandbox(`hidden-data-${process.pid}`, env, testBackend(path.join(root, "sandboxes")));
}, 300_000);

afterAll(async () => {
  await sandbox?.destroy();
});

describe("fix_embedding's run sandbox (tiny assets, real sandbox)", () => {
  test("no file an agent command can read is a file of the shipped mini-chat policy", async () => {
    const files = shippedFiles();
    expect(files.map((f) => path.basename(f.file)).sort()).toEqual(["manifest.json", "meta.json", "model.q8.pt", "tokenizer.json"]);
    const sizes = [...new Set(files.map((f) => `-size ${f.bytes}c`))].join(" -o ");
    // Every file of the agent's view with one of their sizes, hashed: wherever a copy is, under whatever name.
    const search = `find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f \\( ${sizes} \\) -print0 2>/dev/null | xargs -0 -r sha256sum`;
    const found = await sandbox.exec(search, { timeoutMs: 120_000 });
    expect(found.stdout).not.toBe(""); // the search works: some file has one of these sizes
    const copies = found.stdout.split("\n").filter((line) => files.some((f) => line.startsWith(f.sha256)));
    expect(copies).toEqual([]);
    const listed = await sandbox.exec(`ls -A ${SANDBOX_PATHS.python}/${PYTHON_DATA_HIDDEN[0]} | wc -l`);
    expect(listed.stdout).toBe("0\n");
    // The code next to it is still there: graders import rebench_env.assets.
    expect((await sandbox.exec(`test -f ${SANDBOX_PATHS.python}/rebench_env/assets/shipped.py`)).exitCode).toBe(0);
  }, 180_000);

  test.skipIf(INFO_MANUAL === undefined)("the Python documentation's Info manual reads empty", async () => {
    expect(statSync(INFO_MANUAL!).size).toBeGreaterThan(1_000_000);
    const seen = await sandbox.exec(`wc -c < ${INFO_MANUAL}`);
    expect(seen.stdout).toBe("0\n");
  });
});
