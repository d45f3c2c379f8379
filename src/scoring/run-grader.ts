/**
 * @module
 * One protected scoring call. The variant's grader runs inside the sandbox as the grader user, in its own
 * process, from the protected directory, and writes a GraderResult to the file named in `REBENCH_RESULT`
 * (a fresh directory per call that only the grader user can write). Its stdout is never parsed: every way a
 * grader can fail (no file, a malformed file, a non-zero exit, a crash, the time limit) is an `error` or
 * `timedOut` outcome, never a score. The protocol is spelled out in `src/environments/contract.ts`.
 * Every entry records in `details.contention` how much other work used the machine during the grader's run
 * (contention-watch.ts); a timing-sensitive variant's entry taken on a busy machine is flagged there.
 */
import { randomBytes } from "node:crypto";
import { formatIssues, type GraderResult, GraderResult as GraderResultSchema, shellJoin, type TaskId, type Variant } from "../core/index.js";
import type { ExecResult, Sandbox } from "../sandbox/sandbox.js";
import { watchContention } from "./contention-watch.js";

/** The largest result file rebench reads; a larger one is an `error` outcome. */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** How much of the grader's stdout and stderr is kept (the tail) in the entry's `details`. */
export const GRADER_OUTPUT_TAIL_CHARS = 4000;

export interface GraderCall {
  /** The variant's `grader.command`, run from the protected directory. */
  command: readonly string[];
  task: TaskId;
  variant: Variant;
  /** The manifest's `timeouts.scoreSeconds`: grader start to exit. */
  timeoutSeconds: number;
  /**
   * Hold `Sandbox.pauseAgent` while the grader runs (a jailed environment: nothing the agent left running may
   * watch or time the call). Default false.
   */
  pauseAgent?: boolean;
  /** The variant's `scoring.timingSensitive`: flag the entry when other work shared the machine. Default false. */
  timingSensitive?: boolean;
  /** Mean CPUs of other work above which such an entry is flagged; default CONTENTION_THRESHOLD_CPUS. */
  contentionThresholdCpus?: number;
  signal?: AbortSignal;
}

/** What rebench records about the grader process, under `details.rebench` of every entry. */
export interface GraderProcessInfo {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
}

/** Run the grader once and return its result; grader failures are outcomes, sandbox failures throw. */
export async function runGrader(sandbox: Sandbox, call: GraderCall): Promise<GraderResult> {
  const resultDir = `${sandbox.paths.protected}/.rebench/results/${Date.now()}-${randomBytes(4).toString("hex")}`;
  const resultPath = `${resultDir}/result.json`;
  const prepared = await sandbox.exec(`umask 077 && mkdir -p -- ${shellJoin([resultDir])}`, {
    user: "grader",
    cwd: sandbox.paths.protected,
    timeoutMs: 30_000,
  });
  if (prepared.exitCode !== 0) {
    return failed(`could not prepare the grader's result directory: ${tail(prepared.stderr) || `exit ${prepared.exitCode}`}`);
  }
  const paused = call.pauseAgent ? await sandbox.pauseAgent() : undefined;
  try {
    const watch = await watchContention(sandbox, {
      timingSensitive: call.timingSensitive ?? false,
      ...(call.contentionThresholdCpus === undefined ? {} : { thresholdCpus: call.contentionThresholdCpus }),
    });
    const run = await sandbox.exec(shellJoin(call.command), {
      user: "grader",
      cwd: sandbox.paths.protected,
      env: {
        REBENCH_RESULT: resultPath,
        REBENCH_WORKSPACE: sandbox.paths.workspace,
        REBENCH_PROTECTED: sandbox.paths.protected,
        REBENCH_TASK: call.task,
        REBENCH_VARIANT: call.variant,
      },
      timeoutMs: call.timeoutSeconds * 1000,
      maxOutputBytes: 256 * 1024,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    const contention = await watch.stop();
    const measured = contention === undefined ? {} : { contention };
    const info = processInfo(run);
    if (run.timedOut) {
      return { outcome: { kind: "timedOut", afterSeconds: call.timeoutSeconds }, message: {}, details: { rebench: info, ...measured } };
    }
    if (call.signal?.aborted) return failed("scoring was cancelled", info, measured);
    const written = await readResult(sandbox, resultPath);
    if (run.exitCode !== 0) {
      const how = run.exitCode === null ? `was killed by ${run.signal ?? "a signal"}` : `exited with code ${run.exitCode}`;
      return failed(`the grader ${how}`, { ...info, result: written.kind === "ok" ? written.result : written.problem }, measured);
    }
    if (written.kind === "problem") return failed(written.problem, info, measured);
    return { ...written.result, details: { ...written.result.details, rebench: info, ...measured } };
  } finally {
    await sandbox.exec(`rm -rf -- ${shellJoin([resultDir])}`, { user: "grader", cwd: sandbox.paths.protected, timeoutMs: 30_000 });
    await paused?.release();
  }
}

type Written = { kind: "ok"; result: GraderResult } | { kind: "problem"; problem: string };

async function readResult(sandbox: Sandbox, resultPath: string): Promise<Written> {
  let bytes: Uint8Array;
  try {
    bytes = await sandbox.readFile(resultPath, { user: "grader" });
  } catch {
    return { kind: "problem", problem: "the grader wrote no result file (write it to $REBENCH_RESULT)" };
  }
  if (bytes.byteLength > MAX_RESULT_BYTES) {
    return { kind: "problem", problem: `the grader's result file is ${bytes.byteLength} bytes, over the ${MAX_RESULT_BYTES}-byte limit` };
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    return { kind: "problem", problem: `the grader's result file is not JSON: ${(error as Error).message}` };
  }
  const parsed = GraderResultSchema.safeParse(json);
  if (!parsed.success) {
    return { kind: "problem", problem: `the grader's result file is not a GraderResult:\n${formatIssues(parsed.error)}` };
  }
  return { kind: "ok", result: parsed.data };
}

function failed(message: string, info?: unknown, measured: Record<string, unknown> = {}): GraderResult {
  return { outcome: { kind: "error", message }, message: {}, details: { ...(info === undefined ? {} : { rebench: info }), ...measured } };
}

function processInfo(run: ExecResult): GraderProcessInfo {
  return {
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
    stdoutTail: tail(run.stdout),
    stderrTail: tail(run.stderr),
  };
}

function tail(text: string): string {
  return text.length <= GRADER_OUTPUT_TAIL_CHARS ? text : `...${text.slice(-GRADER_OUTPUT_TAIL_CHARS)}`;
}
