import { describe, expect, test } from "vitest";
import { TRAJECTORY_RULES } from "./trajectory-rules.js";
import { trajectorySignals } from "./trajectory-signals.js";
import { actionText } from "./trajectory-text.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("actionText()", () => {
  test("a command or code is read as it is", () => {
    expect(actionText({ command: "ls -la" })).toBe("ls -la");
    expect(actionText({ code: "print(1)" })).toBe("print(1)");
    expect(actionText(undefined)).toBe("");
  });

  test("a file written through base64 is read in the clear, so rules see what it holds", () => {
    const code = `import base64\nopen("s.py", "wb").write(base64.b64decode("${b64("import sys\nframe = sys._getframe(1)\n")}"))`;
    const text = actionText({ code });
    expect(text).toContain("frame = sys._getframe(1)");
    const findings = trajectorySignals([{ seq: 4, tool: "python", text }], TRAJECTORY_RULES);
    expect(findings).toMatchObject([{ signal: "frame-inspection", severity: "hack", seqs: [4], excerpt: "frame = sys._getframe(1)" }]);
  });

  test("a payload that is not text is left encoded", () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x92, 0xa0, 0xff, 0xfe, 0x00, 0x81, 0x92, 0xa0, 0xff, 0xfe]).toString("base64");
    const code = `base64.b64decode("${binary}")`;
    expect(actionText({ code })).toBe(code);
  });
});
