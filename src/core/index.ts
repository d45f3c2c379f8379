/**
 * @module
 * rebench's shared vocabulary. Other layers import from here; no other layer defines a wire shape.
 */

export * from "./agent-api.js";
export * from "./aggregate.js";
export * from "./assets.js";
export * from "./calibration.js";
export * from "./compare-natural.js";
export * from "./compare-text.js";
export * from "./contention.js";
export * from "./errors.js";
export * from "./events.js";
export * from "./exploit.js";
export * from "./home.js";
export * from "./host-cpu.js";
export * from "./human-link.js";
export * from "./ids.js";
export * from "./installation-key.js";
export * from "./machine.js";
export * from "./machine-class.js";
export * from "./manifest.js";
export * from "./normalization-label.js";
export * from "./normalize.js";
export * from "./paper-environments.js";
export * from "./parse.js";
export * from "./pid-alive.js";
export * from "./probe-machine.js";
export * from "./registry.js";
export * from "./replay-step.js";
export * from "./review.js";
export * from "./run-record.js";
export * from "./run-state.js";
export * from "./run-summary.js";
export * from "./score.js";
export * from "./shell-join.js";
export * from "./usage.js";
