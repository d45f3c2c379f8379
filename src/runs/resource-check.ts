/**
 * @module
 * Whether this machine has what a variant's manifest asks for, checked before a run of it is created:
 * today the GPUs (their count, as nvidia-smi lists them). A variant that needs a GPU refuses on a machine
 * without one, saying so, instead of starting a run whose every score is an error.
 */
import { execFileSync } from "node:child_process";
import { type Resources, UnavailableError } from "../core/index.js";

let detected: readonly string[] | undefined;

/** The GPUs of this machine by name (`nvidia-smi --query-gpu=name`); none when nvidia-smi is missing or fails. Cached. */
export function machineGpus(): readonly string[] {
  if (detected === undefined) {
    try {
      const out = execFileSync("nvidia-smi", ["--query-gpu=name", "--format=csv,noheader"], {
        encoding: "utf8",
        timeout: 15_000,
        stdio: ["ignore", "pipe", "ignore"],
      });
      detected = out
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean);
    } catch {
      detected = [];
    }
  }
  return detected;
}

/** What the machine lacks of `resources`, in words, or undefined when it has it. */
export function resourceShortfall(resources: Resources, gpus: readonly string[]): string | undefined {
  const need = resources.gpu;
  if (!need || gpus.length >= need.countRange[0]) return undefined;
  const count = need.countRange[0];
  const models = need.models.map((m) => m.toUpperCase()).join(" or ");
  const has = gpus.length === 0 ? "none (nvidia-smi lists no GPU)" : `${gpus.length} (${gpus.join(", ")})`;
  return `needs ${count === 1 ? "a GPU" : `${count} GPUs`} (${models}) and this machine has ${has}`;
}

/** Throw UnavailableError (exit 4) when this machine lacks what the variant needs. */
export function requireResources(name: string, variant: string, resources: Resources, gpus: readonly string[] = machineGpus()): void {
  const why = resourceShortfall(resources, gpus);
  if (why) {
    throw new UnavailableError(`${name}/${variant} ${why}`, {
      hint: "run it on a machine with the GPU it needs (`rebench environments show` lists the resources), or use --variant mini",
    });
  }
}
