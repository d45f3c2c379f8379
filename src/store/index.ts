/**
 * @module
 * The run store: interface, SQLite implementation, copies between stores, and how commands open it. The
 * PostgreSQL store (./postgres/postgres-store.ts) is imported by path, so that its driver loads only where it is used.
 */

export * from "./copy-store.js";
export * from "./open-store.js";
export * from "./orphaned-run.js";
export * from "./redact-url.js";
export * from "./sqlite/sqlite-store.js";
export * from "./store.js";
