/**
 * @module
 * scripts/scaling-law-sweep-figure.ts writes a sweep's figure (its ground truth in plain form) outside the checkout only.
 * Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
 */
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { insideCheckout } from "../scripts/scaling-law-sweep-figure.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("sweep-figure", () => {
  test("insideCheckout() refuses the environment's folders and the checkout's root, and allows /tmp", () => {
    expect(insideCheckout(path.join(ROOT, "environments", "scaling_law", "sweep", "mini-sweep"))).toBe(true);
    expect(insideCheckout(path.join(ROOT, "mini-sweep"))).toBe(true);
    expect(insideCheckout(path.join(os.tmpdir(), "sweeps", "mini-sweep"))).toBe(false);
    expect(insideCheckout(path.resolve(ROOT, "..", "elsewhere", "mini-sweep"))).toBe(false);
  });
});
