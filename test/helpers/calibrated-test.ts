/**
 * @module
 * Tests that need the calibration entry of this machine's class for a real environment variant (a
 * normalized score, a calibrated constant). CI's machine is an AMD EPYC or an Intel Xeon, and
 * calibration.json may have an entry for only one of them: such a test runs, and can fail, where the entry
 * exists, and elsewhere is skipped with a name that says which class lacks it and the command that makes it.
 * Tests whose point is not normalization do not use this: they judge what holds without constants.
 */
import { test } from "vitest";
import { probeMachine, type Variant } from "../../src/core/index.js";
import { normalizationOn } from "../../src/environments/normalization-on.js";
import { getVariant } from "../../src/environments/registry.js";

/**
 * `test`, skipped (with the reason in its name) where `environment/variant` has no constants on this
 * machine: `const calibrated = await calibratedTest("scaling_law", "mini"); calibrated("...", fn, timeout)`.
 */
export async function calibratedTest(environment: string, variant: Variant) {
  const { missing } = normalizationOn(environment, getVariant(environment, variant), await probeMachine());
  return (name: string, fn: () => Promise<void>, timeout?: number) =>
    test.skipIf(missing !== undefined)(missing === undefined ? name : `${name} (skipped: ${missing})`, fn, timeout);
}
