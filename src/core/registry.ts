/**
 * @module
 * The one registry primitive: environments (src/environments/registry.ts), scaffolds (src/runs/scaffolds.ts)
 * and sandbox backends (src/runs/sandbox-backends.ts) are each a `Registry` of entries that carry their own
 * name and what commands need to know about them. Names are derived from the entries; no second list exists.
 *
 * One override rule for all three: registering the same entry again does nothing; another entry under a taken
 * name is a ConflictError, unless the registration says `replace` (a test's fixture over a built-in) or
 * `ifAbsent` (a built-in registered where nothing else took the name, so that an earlier test's entry wins).
 */
import { ConflictError, NotFoundError } from "./errors.js";

export interface Named {
  readonly name: string;
}

export interface RegisterOptions {
  /** Whether `list()` and `names()` include it (default true; test environments are found by name only). */
  listed?: boolean;
  /** Replace an entry of the same name. */
  replace?: boolean;
  /** Register only where the name is free; otherwise keep the entry there. */
  ifAbsent?: boolean;
}

export class Registry<T extends Named> {
  private readonly entries = new Map<string, { entry: T; listed: boolean }>();

  /** `what` names an entry in messages: `environment`, `scaffold`, `sandbox backend`. */
  constructor(private readonly what: string) {}

  register(entry: T, options: RegisterOptions = {}): void {
    const existing = this.entries.get(entry.name);
    if (existing && (existing.entry === entry || options.ifAbsent)) return;
    if (existing && !options.replace) throw new ConflictError(`a ${this.what} named "${entry.name}" is already registered`);
    this.entries.set(entry.name, { entry, listed: options.listed ?? true });
  }

  find(name: string): T | undefined {
    return this.entries.get(name)?.entry;
  }

  /** The entry, or a NotFoundError naming the listed ones. */
  get(name: string, hint?: string): T {
    const found = this.find(name);
    if (!found) {
      const known = this.names();
      throw new NotFoundError(`unknown ${this.what} "${name}"`, {
        hint: hint ?? (known.length > 0 ? `known: ${known.join(", ")}` : `no ${this.what} is registered`),
      });
    }
    return found;
  }

  /** Listed entries, in the order they were first registered. */
  list(): T[] {
    return [...this.entries.values()].filter((e) => e.listed).map((e) => e.entry);
  }

  names(): string[] {
    return this.list().map((e) => e.name);
  }
}
