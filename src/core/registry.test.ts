import { describe, expect, test } from "vitest";
import { ConflictError, NotFoundError } from "./errors.js";
import { Registry } from "./registry.js";

const entry = (name: string, n = 0) => ({ name, n });

describe("Registry", () => {
  test("derives names and lists from its entries, in registration order, unlisted ones found by name only", () => {
    const registry = new Registry<{ name: string; n: number }>("widget");
    registry.register(entry("b"));
    registry.register(entry("a"));
    registry.register(entry("hidden"), { listed: false });
    expect(registry.names()).toEqual(["b", "a"]);
    expect(registry.find("hidden")?.name).toBe("hidden");
    expect(() => registry.get("c")).toThrow(NotFoundError);
    expect(() => registry.get("c")).toThrow(/unknown widget "c"/);
  });

  test("one override rule: the same entry again is a no-op, another under a taken name a conflict unless replace or ifAbsent", () => {
    const registry = new Registry<{ name: string; n: number }>("widget");
    const first = entry("a", 1);
    registry.register(first);
    registry.register(first);
    expect(() => registry.register(entry("a", 2))).toThrow(ConflictError);
    registry.register(entry("a", 3), { ifAbsent: true });
    expect(registry.get("a").n).toBe(1);
    registry.register(entry("a", 4), { replace: true });
    expect(registry.get("a").n).toBe(4);
    expect(registry.names()).toEqual(["a"]);
  });
});
