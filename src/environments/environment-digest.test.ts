import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { environmentDigest } from "./environment-digest.js";

function family(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("environmentDigest()", () => {
  const base = { "workspace/solution.py": "x = 1\n", "grader/score.py": "print(1)\n", "README.md": "docs\n" };

  test("is the same for the same shipped files, wherever the folder is; other files do not count", () => {
    const a = environmentDigest(family(base), { workspace: "workspace" });
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(environmentDigest(family({ ...base, "README.md": "other docs\n" }), { workspace: "workspace" })).toBe(a);
  });

  test("changes with a grader's content, a workspace file's name, or the protected folders named", () => {
    const a = environmentDigest(family(base), { workspace: "workspace" });
    expect(environmentDigest(family({ ...base, "grader/score.py": "print(2)\n" }), { workspace: "workspace" })).not.toBe(a);
    const { "workspace/solution.py": text, ...rest } = base;
    expect(environmentDigest(family({ ...rest, "workspace/main.py": text }), { workspace: "workspace" })).not.toBe(a);
    expect(environmentDigest(family({ ...base, "extra/data.txt": "d" }), { workspace: "workspace", protected: ["grader", "extra"] })).not.toBe(a);
  });

  test("changes with a folder named in digested (a workspace overlay that prepare hands out)", () => {
    const files = { ...base, "workspace_paper/model.py": "a\n" };
    const impl = { workspace: "workspace", digested: ["workspace_paper"] };
    const a = environmentDigest(family(files), impl);
    expect(environmentDigest(family({ ...files, "workspace_paper/model.py": "b\n" }), impl)).not.toBe(a);
    expect(environmentDigest(family({ ...files, "workspace_paper/model.py": "b\n" }), { workspace: "workspace" })).toBe(
      environmentDigest(family(files), { workspace: "workspace" }),
    );
  });

  test("changes with the reference solution's folder, also where it is not a protected folder", () => {
    const impl = { workspace: "workspace", protected: ["grader"], reference: { actions: "reference/mini.actions.jsonl" } };
    const files = { ...base, "reference/mini.actions.jsonl": '{"tool": "score"}\n', "reference/solution.zip": "a" };
    const a = environmentDigest(family(files), impl);
    expect(environmentDigest(family({ ...files, "reference/solution.zip": "b" }), impl)).not.toBe(a);
    expect(environmentDigest(family({ ...files, "reference/solution.zip": "b" }), { ...impl, reference: undefined })).toBe(
      environmentDigest(family(files), { ...impl, reference: undefined }),
    );
  });
});
