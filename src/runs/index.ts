/**
 * @module
 * The run lifecycle: budgets, the agent's tool API, batches and recovery after a crash.
 */
export * from "./agents.js";
export * from "./batch.js";
export * from "./clock.js";
export * from "./drive-run.js";
export * from "./finish-run.js";
export * from "./materialize.js";
export * from "./ownership.js";
export * from "./resume-runs.js";
export * from "./run-environment.js";
export * from "./run-log.js";
export * from "./run-session.js";
export * from "./sandbox-backends.js";
export * from "./start-run.js";
export * from "./time-ledger.js";
export * from "./tool-api.js";
export * from "./transitions.js";
export * from "./dir-run.js";
export * from "./workspace-sync.js";
export * from "./builtin-backends.js";
