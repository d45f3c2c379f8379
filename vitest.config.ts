import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "environments/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The default reporter, then the ten slowest test files of the run (test/reporters/slowest-files.ts).
    reporters: ["default", "./test/reporters/slowest-files.ts"],
    // REBENCH_TEST_CPU_MODEL: the CPU model the tests' machine probe sees (test/helpers/simulated-cpu.ts).
    setupFiles: ["test/helpers/simulated-cpu.ts"],
  },
});
