import { describe, expect, test } from "vitest";
import { mayBeTheStop } from "./slurm-job.js";

const observation = (output: unknown) => ({ type: "observation" as const, actionId: "a1", tool: "bash" as const, output });

describe("mayBeTheStop()", () => {
  test("a command killed, a shell's report of a signal, a failed call, an invalid score, a failed run: checked with Slurm first", () => {
    expect(mayBeTheStop(observation({ exitCode: null, signal: "SIGTERM", stdout: "", stderr: "" }))).toBe(true);
    expect(mayBeTheStop(observation({ exitCode: 143, signal: null, stdout: "", stderr: "" }))).toBe(true);
    expect(mayBeTheStop(observation({ error: "the sandbox's executor went away" }))).toBe(true);
    const entry = (outcome: object) => ({ timestamp: "2026-12-07T00:00:00.000Z", elapsedSeconds: 1, outcome, message: {}, details: {} });
    expect(mayBeTheStop({ type: "score_logged", trigger: "action", entry: entry({ kind: "error", message: "grader killed" }) } as never)).toBe(true);
    expect(mayBeTheStop({ type: "run_failed", error: "the sandbox is gone" })).toBe(true);
  });

  test("a command that ended by itself, a valid score, other events: written at once", () => {
    expect(mayBeTheStop(observation({ exitCode: 1, signal: null, stdout: "", stderr: "no such file" }))).toBe(false);
    expect(mayBeTheStop(observation({ exitCode: 128, signal: null, stdout: "", stderr: "" }))).toBe(false);
    expect(mayBeTheStop(observation("plain text"))).toBe(false);
    const entry = { timestamp: "2026-12-07T00:00:00.000Z", elapsedSeconds: 1, outcome: { kind: "scored", value: 0.5 }, message: {}, details: {} };
    expect(mayBeTheStop({ type: "score_logged", trigger: "action", entry } as never)).toBe(false);
    expect(mayBeTheStop({ type: "note", message: "hello" })).toBe(false);
  });
});
