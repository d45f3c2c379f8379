/**
 * @module
 * Protected intermediate scoring: run the grader, show the agent what it may see, aggregate the log.
 */
export * from "./final-score.js";
export * from "./run-grader.js";
export * from "./score-view.js";
