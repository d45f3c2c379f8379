/**
 * @module
 * Runs of a model-driven scaffold in tests: `rebench run` in this process against a scripted OpenAI or
 * Anthropic server (a real socket, which the SDKs talk to), on test_echo and the test sandbox, and what
 * the run left in the store.
 */
import path from "node:path";
import { afterEach, beforeAll, expect } from "vitest";
import {
  type Script,
  type ScriptedProtocol,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from "../../src/agents/models/testing/scripted-server.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { rebench } from "./cli.js";
import { registerFixtures, TEST_BACKEND } from "./register-fixtures.js";
import { tempDir } from "./tmp.js";

export interface RunJson {
  runId: string;
  rawScore: number | null;
  normalizedScore: number | null;
  tokens: number;
  costUsd: number;
}

export function scaffoldRuns(scaffold: "modular" | "aide") {
  const root = tempDir(`rebench-${scaffold}-`);
  registerFixtures(path.join(root, "sandboxes"));
  const db = path.join(root, "runs.db");
  let server: ScriptedServer | undefined;
  beforeAll(() => {
    process.env.OPENAI_API_KEY = "test-key";
    process.env.ANTHROPIC_API_KEY = "test-key";
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    root,
    db,
    /** The scripted server of the latest run. */
    get server(): ScriptedServer {
      if (!server) throw new Error("no run yet");
      return server;
    },
    /** `rebench run test_echo --agent SCAFFOLD --model openai:gpt-4o ... --json` with the model playing `script`. */
    run(script: Script, ...extra: string[]) {
      return this.runOn("openai", script, ...extra);
    },
    /** The same against the protocol's scripted server: openai:gpt-4o or anthropic:claude-sonnet-4-20250514. */
    runOn(protocol: ScriptedProtocol, script: Script, ...extra: string[]) {
      return this.runModel(protocol === "openai" ? "openai:gpt-4o" : "anthropic:claude-sonnet-4-20250514", script, ...extra);
    },
    /** The same with `--model MODEL` (`openai:...` or `anthropic:...`) against its provider's scripted server (with `server` options). */
    async runModel(model: string | { model: string; server: ScriptedServerOptions }, script: Script, ...extra: string[]) {
      const options = typeof model === "string" ? {} : model.server;
      model = typeof model === "string" ? model : model.model;
      const protocol: ScriptedProtocol = model.startsWith("anthropic:") ? "anthropic" : "openai";
      server = await startScriptedServer(protocol, script, { ...options, apiKey: "test-key" });
      process.env[protocol === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL"] = server.baseUrl;
      const out = await rebench(
        "run",
        "test_echo",
        "--variant",
        "mini",
        "--agent",
        scaffold,
        "--model",
        model,
        "--backend",
        TEST_BACKEND,
        "--db",
        db,
        "--json",
        "--progress",
        "1",
        ...extra,
      );
      expect(out.code, out.stderr).toBe(0);
      const run = (JSON.parse(out.stdout) as { runs: RunJson[] }).runs[0]!;
      const store = SqliteRunStore.open(db);
      try {
        return {
          out,
          run,
          summary: await store.getRun(run.runId),
          events: (await store.events(run.runId)).map((e) => e.event),
          log: await store.scoreLog(run.runId),
        };
      } finally {
        await store.close();
      }
    },
  };
}
