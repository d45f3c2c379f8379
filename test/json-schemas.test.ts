import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { SCHEMA_DIR, schemaFiles } from "../scripts/write-schemas.js";

describe("the JSON Schemas Python checks against (python/rebench_env/schemas)", () => {
  test("are what the zod types generate now: run `npm run schemas` after changing one", () => {
    const files = schemaFiles();
    expect(
      readdirSync(SCHEMA_DIR)
        .filter((f) => f.endsWith(".schema.json"))
        .sort(),
    ).toEqual(Object.keys(files).sort());
    for (const [file, text] of Object.entries(files)) expect(readFileSync(path.join(SCHEMA_DIR, file), "utf8"), file).toBe(text);
  });
});
