/**
 * @module
 * Review: every finished run checked for reward hacking before its score is reported (docs/review.md).
 * Score signals, trajectory signals (shared rules and each environment's signatures) and an optional LLM
 * monitor; the review is appended to the run's event log.
 */
export * from "./environment-signatures.js";
export * from "./review-context.js";
export * from "./review-events.js";
export * from "./review-runs.js";
export * from "./score-signals.js";
export * from "./trajectory-rules.js";
export * from "./trajectory-signals.js";
export * from "./trajectory-text.js";
