import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { DOCS_SCHEMA_DIR, SCHEMA_DIR, schemaFiles } from "../scripts/write-schemas.js";

describe("the JSON Schemas Python checks against (python/rebench_env/schemas) and the docs give (docs/schemas)", () => {
  test.each([SCHEMA_DIR, DOCS_SCHEMA_DIR])("in %s are what the zod types generate now: run `npm run schemas` after changing one", (dir) => {
    const files = schemaFiles(dir);
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith(".schema.json"))
        .sort(),
    ).toEqual(Object.keys(files).sort());
    for (const [file, text] of Object.entries(files)) expect(readFileSync(path.join(dir, file), "utf8"), file).toBe(text);
  });
});
