/**
 * @module
 * Model clients for the scaffolds: one `ModelClient` interface, made from a spec string by
 * `createModelClient`. The scripted protocol servers for tests live in `./testing/`.
 */
export * from "./create-model-client.js";
export * from "./errors.js";
export * from "./model-client.js";
export * from "./model-spec.js";
export * from "./prices.js";
export { type Clock, DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
