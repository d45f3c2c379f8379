/**
 * @module
 * Whether a process of this machine still exists (src/core/pid-alive.ts, where the store's readers find it too).
 */
export { pidAlive } from "../core/index.js";
