/**
 * @module
 * The environment contract: what an environment family declares so that rebench can start it, score
 * it, calibrate it and compare participants on it. One family per folder `environments/<name>/`, each
 * with its three variants (`mini`, `gpu`, `paper`).
 *
 * Files beside `family.ts` that the general commands read (an environment adds data files, no code):
 * - `calibration.json` (`CalibrationFile`, src/core/calibration.ts): written by `rebench calibrate NAME
 *   --variant V --write`: `{"canary": GUID, "<variant>": {"<machine class>": {machine, date, runs, start: {mean,
 *   std, n, values}, reference: {...}, gapOverStd, note?}}}`. `defineEnvironment` reads it; the means of a
 *   class's entry become the `mini` and `gpu` normalization constants (source `calibration`) of runs on
 *   machines of that class, `paper` keeps the paper's.
 * - `exploits/*.json` (`ExploitFile`, src/core/exploit.ts), one observed hack each, run by `rebench exploits
 *   NAME --variant V`: `{"comment": which hack and where it was seen, "source"?: link, "variants"?: [...],
 *   "task"?: "main", "steps": [tool calls as in `reference.actions`, no submit, plus {"tool": "upload",
 *   "input": {"from": FILE beside it, "to": PATH}}], "blocked": [expectations, all must hold:
 *   {"kind": "invalidScores"} | {"kind": "normalizedAtMost", "bound": X} | {"kind": "check", "command": BASH,
 *   "user"?: "root" | "grader", "timeoutSeconds"?: 60, "description"?: TEXT}]}`. The run replays the steps,
 *   runs the checks in its sandbox, then submits. Other files in `exploits/` are the exploits' support files.
 */
import type { ClassKind, EnvironmentId, Manifest, NormalizationConstants, TaskId, Variant, VariantCalibration } from "../core/index.js";

/**
 * What an implemented variant provides. Paths are relative to the environment's folder.
 * The sandbox copies `workspace` into the agent's working directory, keeps `grader` and `reference`
 * (and any other folders named in `protected`) in the protected directory, and runs `grader.command` as
 * the grader user for every `score` action.
 *
 * The grader protocol (`src/scoring/run-grader.ts` implements the rebench side):
 * - `grader.command` runs inside the run's sandbox as the `grader` user, in its own process, with the
 *   protected directory as working directory and these variables added to the sandbox's environment:
 *   - `REBENCH_RESULT`: the file to write the result to, in a fresh directory per call that only the grader
 *     user can write (inside the protected directory, so the agent user cannot read it either);
 *   - `REBENCH_WORKSPACE`: the agent's workspace (read the solution from here; do not run it in-process);
 *   - `REBENCH_PROTECTED`: the protected directory (grader code, hidden data, reference outputs);
 *   - `REBENCH_TASK`: `main` or `hidden_score` (with `hidden_score`, keep score-revealing numbers out of
 *     `message`);
 *   - `REBENCH_VARIANT`: `mini`, `gpu` or `paper`;
 *   - `REBENCH_AS_AGENT`: set by the sandbox backend: an executable that runs agent code as the agent user,
 *     `$REBENCH_AS_AGENT [--timeout S] [--cwd DIR] -- argv...` (Python: `rebench_env.agent_call`). Time and
 *     check agent code from outside through it; never import or exec it in the grader's process.
 * - The grader writes one GraderResult JSON (`src/core/score.ts`; `rebench_env.result.write_result` writes
 *   it) to `REBENCH_RESULT` and exits 0. An unusable solution is a result too: `{"kind": "invalid",
 *   "reason": ...}`. stdout and stderr are kept (tails) in the entry's `details`, never parsed.
 * - No result file, a malformed or oversized one (over 1 MiB), a non-zero exit, a crash or running past the
 *   manifest's `timeouts.scoreSeconds` make the entry `error` or `timedOut`: never a score.
 * - `message` is shown to the agent, without the score value for `hidden_score` and when the manifest's
 *   `scoring.visibleToAgent` is false (rebench also blanks any number in `message` equal to that value);
 *   `details` are only stored.
 */
export interface VariantImplementation {
  /** The text the agent (or human) starts from, for a task. */
  instructions(task: TaskId): string;
  /** Folder whose contents become the agent's workspace. */
  workspace: string;
  /** The hidden scorer: argv run from the protected directory; writes its result to the path in `REBENCH_RESULT`. */
  grader: { command: readonly string[] };
  /**
   * The hidden reference solution, applied by the `replay` agent through the tool API: a JSON Lines file of
   * tool calls, one `{"tool": "bash" | "python" | "score" | "score_log" | "submit", "input": {...}}` a line
   * (the inputs of `ToolApi` in `src/core/agent-api.ts`), plus `{"tool": "upload", "input": {"from": FILE,
   * "to": PATH}}` as in exploit files: FILE (under `files`) written to PATH in the sandbox by a `python` call.
   * `files`: where uploads read from: a folder relative to the environment's folder (default: the actions
   * file's folder), or a function that fills the empty host folder it is given (e.g. unpacks an encrypted
   * archive); it runs on the host when a replay run starts, and the folder is deleted once read, so the
   * reference reaches the sandbox only through the replayed tool calls.
   */
  reference: { actions: string; files?: string | ((dest: string) => void) };
  /** Folders copied into the protected directory under the same names; default `["grader", "reference"]`. */
  protected?: readonly string[];
  /** Optional set-up run as root/grader before the agent starts (unpacking assets, warm-up runs). */
  setup?: { command: readonly string[] };
  /**
   * Asset names (see `rebench assets`) the variant needs built first. Each is copied, links resolved, into
   * the protected directory as `assets/<name>` (grader and root only; src/runs/stage-assets.ts): the
   * set-up hands the agent what it may see. A run of a variant whose assets are not built fails to start,
   * naming the build command.
   */
  assets?: readonly string[];
  /**
   * Optional: runs on the host before a run's sandbox is created (and before `rebench start` copies the
   * workspace into its directory). It builds or finds, ideally cached, what the variant needs and says where:
   * see `VariantPreparation`.
   */
  prepare?: () => VariantPreparation | Promise<VariantPreparation>;
  /**
   * Other folders of the environment's folder that the variant's files come from, such as a workspace overlay
   * that `prepare` hands out: counted in the environment digest (RunSpec.provenance) with the workspace, the
   * protected folders and the reference's.
   */
  digested?: readonly string[];
  /** How the variant's sandbox is confined beyond what every run gets (see `VariantIsolation`). */
  isolation?: VariantIsolation;
}

/**
 * Confinement a variant asks for beyond the defaults. Every run already gets: the corpus's raw texts hidden
 * (`SandboxSpec.hide`), an environment secret in `$REBENCH_PROTECTED/.rebench/secret.json` to derive hidden
 * seeds from (`rebench_env.secrets`), and the agent user unable to read the protected directory.
 */
export interface VariantIsolation {
  /**
   * The grader runs agent code on hidden inputs (a scaffold on hidden problems, a model on hidden windows):
   * every `REBENCH_AS_AGENT` call runs in the one-shot jail (python/rebench_env/sandbox_jail.py), and the
   * agent's own processes are paused for the whole of each scoring call. The one flag an environment sets.
   */
  jail?: boolean;
  /** CPUs the agent's own processes get together (`SandboxLimits.agentCpus`), where the task caps compute. */
  agentCpus?: number;
  /** false: the variant's GPUs are the grader's (its launcher's) only (`SandboxSpec.agentGpus`). */
  agentGpus?: boolean;
}

/** What `VariantImplementation.prepare` hands the sandbox: host folders and tools. */
export interface VariantPreparation {
  /** Host folder whose contents are added to the workspace (over the variant's `workspace` folder). */
  workspace?: string;
  /** Host folder whose contents are added to the protected directory (beside the `protected` folders). */
  protected?: string;
  /** Host paths mounted into the sandbox for every user, read-only by default (a compiler's toolchain). */
  mounts?: readonly { source: string; target: string; readOnly?: boolean }[];
  /** Directories inside the sandbox put first on every user's PATH (a mounted toolchain's bin). */
  path?: readonly string[];
  /** Variables in every user's base environment. */
  env?: Readonly<Record<string, string>>;
}

export type Availability = { status: "available"; implementation: VariantImplementation } | { status: "unavailable"; reason: string };

export interface VariantDefinition {
  variant: Variant;
  /** One line on the scale: hardware, data and model sizes. */
  scale: string;
  manifest: Manifest;
  /**
   * Start and reference raw scores that hold on every machine: the paper's (`paper`), or constants the
   * family declares, used only while calibration.json has no entry for the variant. Runs take theirs from
   * `normalizationOn` (normalization-on.ts).
   */
  normalization: NormalizationConstants | undefined;
  /** What `calibration.json` records for the variant (`rebench calibrate --write`), by machine class: machine, runs, means, deviations. */
  calibrations: Readonly<Record<string, VariantCalibration>>;
  /** Whether the variant's machine class is its GPU's (the manifest asks for a GPU) or its CPU's. */
  classKind: ClassKind;
  availability: Availability;
}

export interface EnvironmentFamily {
  name: EnvironmentId;
  title: string;
  /** What the environment measures, in a sentence or two. */
  summary: string;
  /** Task ids the family offers (`main`, and `hidden_score` except Scaling Law). */
  tasks: readonly TaskId[];
  /** Absolute path of `environments/<name>/`. */
  dir: string;
  variants: Readonly<Record<Variant, VariantDefinition>>;
}

/** The manifest a task sees: `hidden_score` withholds the score value from the agent. */
export function manifestForTask(manifest: Manifest, task: TaskId): Manifest {
  if (task === "main") return manifest;
  return { ...manifest, scoring: { ...manifest.scoring, visibleToAgent: false } };
}
