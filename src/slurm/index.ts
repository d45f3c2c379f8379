/**
 * @module
 * Slurm, as rebench's Slurm executor uses it: the client commands, the request a run's job makes, and the
 * allocation a job sees. Nothing here knows about runs or stores.
 */
export * from "./allocation.js";
export * from "./job-request.js";
export * from "./slurm-cli.js";
