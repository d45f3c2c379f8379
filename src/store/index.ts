/**
 * @module
 * The run store: interface, SQLite implementation, and how commands open it.
 */
export * from "./open-store.js";
export * from "./sqlite/sqlite-store.js";
export * from "./store.js";
