import { describe, expect, test } from "vitest";
import type { DoctorReport } from "../src/cli/commands/doctor.js";
import { commandWorks } from "../src/sandbox/which.js";
import { rebench } from "./helpers/cli.js";
import { fullySetUp } from "./helpers/required.js";

describe("rebench doctor", () => {
  test("--json reports each backend by probing: the local one isolates fully here (root, users set up)", async () => {
    const result = await rebench("doctor", "--json");
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.backends.map((b) => b.backend)).toEqual(["local", "container"]);
    const local = report.backends[0]!;
    if (process.getuid?.() === 0) {
      expect(local).toMatchObject({
        usable: true,
        problems: [],
        isolation: { networkBlocked: true, protectedUnreadable: true, limitsApplied: true, runsAsSeparateUser: true, jailHolds: true },
      });
    } else {
      expect(local.isolation.runsAsSeparateUser).toBe(false);
      expect(local.problems.join("\n")).toMatch(/not root/);
    }
    const container = report.backends[1]!;
    if (fullySetUp() && commandWorks("podman", ["--version"])) {
      // Where bootstrap ran as root with podman, the container backend the README offers must work in full.
      expect(container).toMatchObject({ usable: true, problems: [] });
      expect(Object.values(container.isolation)).toEqual([true, true, true, true, true]);
    } else if (container.usable) expect(Object.values(container.isolation)).toEqual([true, true, true, true, true]);
    else expect(container.problems.length).toBeGreaterThan(0); // it says why not (no engine, no image)
    expect(result.code).toBe(report.ok ? 0 : 1);
  });

  test("prints a table with one row per backend", async () => {
    const result = await rebench("doctor");
    expect(result.stdout).toMatch(/BACKEND\s+USABLE\s+NETWORK BLOCKED\s+PROTECTED UNREADABLE\s+LIMITS APPLIED\s+SEPARATE USER\s+JAIL HOLDS/);
    expect(result.stdout).toMatch(/^local\s+yes/m);
    expect(result.stdout).toMatch(/^container\s+/m);
  });
});
