import { describe, expect, test } from "vitest";
import type { DoctorReport } from "../src/cli/commands/doctor.js";
import { rebench } from "./helpers/cli.js";

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
        isolation: { networkBlocked: true, protectedUnreadable: true, limitsApplied: true, runsAsSeparateUser: true },
      });
    } else {
      expect(local.isolation.runsAsSeparateUser).toBe(false);
      expect(local.problems.join("\n")).toMatch(/not root/);
    }
    const container = report.backends[1]!;
    // Either it works and isolates, or it says why not (no engine, no image) without guessing.
    if (container.usable) expect(Object.values(container.isolation)).toEqual([true, true, true, true]);
    else expect(container.problems.length).toBeGreaterThan(0);
    expect(result.code).toBe(report.ok ? 0 : 1);
  });

  test("prints a table with one row per backend", async () => {
    const result = await rebench("doctor");
    expect(result.stdout).toMatch(/BACKEND\s+USABLE\s+NETWORK BLOCKED\s+PROTECTED UNREADABLE\s+LIMITS APPLIED\s+SEPARATE USER/);
    expect(result.stdout).toMatch(/^local\s+yes/m);
    expect(result.stdout).toMatch(/^container\s+/m);
  });
});
