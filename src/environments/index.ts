/**
 * @module
 * Environments: the contract every family implements and the registry of the seven.
 */

export * from "./calibration-file.js";
export * from "./contract.js";
export * from "./define.js";
export * from "./exploit-files.js";
export * from "./reference-actions.js";
export * from "./registry.js";
