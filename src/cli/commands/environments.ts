/**
 * @module
 * `rebench environments list|show`: what environments exist, their variants, scoring and constants: those
 * of this machine's class (calibration.json keeps one entry per class), and the classes calibrated.
 */
import type { Command } from "commander";
import { type MachineInfo, normalizationLabel, probeMachine, type TaskId, VARIANTS, type Variant } from "../../core/index.js";
import {
  checkTask,
  type EnvironmentFamily,
  getEnvironment,
  getVariant,
  listEnvironments,
  manifestForTask,
  type VariantDefinition,
} from "../../environments/index.js";
import { normalizationOn } from "../../environments/normalization-on.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { formatTable } from "../table.js";

/** The JSON shape of one environment in `environments list --json`. */
export function describeEnvironment(family: EnvironmentFamily, machine: MachineInfo) {
  const paper = family.variants.paper.manifest.scoring;
  return {
    name: family.name,
    title: family.title,
    summary: family.summary,
    tasks: family.tasks,
    direction: paper.direction,
    aggregation: paper.aggregation,
    visibleToAgent: paper.visibleToAgent,
    variants: Object.fromEntries(VARIANTS.map((v) => [v, describeVariant(family.name, family.variants[v], machine)])),
  };
}

function describeVariant(environment: string, definition: VariantDefinition, machine: MachineInfo) {
  const { availability, manifest, scale } = definition;
  const on = normalizationOn(environment, definition, machine);
  return {
    available: availability.status === "available",
    ...(availability.status === "unavailable" ? { reason: availability.reason } : {}),
    scale,
    resources: manifest.resources,
    timeouts: manifest.timeouts,
    /** The constants runs on this machine get: its class's calibration entry, the paper's, or declared ones. */
    normalization: on.constants ?? null,
    normalizationMissing: on.missing ?? null,
    machineClass: on.machineClass,
    /** The machine classes calibration.json has an entry for. */
    calibratedClasses: Object.keys(definition.calibrations),
  };
}

export function registerEnvironments(program: Command, io: Io): void {
  const environments = program.command("environments").description(COMMAND_SUMMARIES.environments);

  environments
    .command("list")
    .description("list the seven environments with their variants, scoring and normalization constants")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExample:\n  rebench environments list --json")
    .action(async (options: { json?: boolean }) => {
      const families = listEnvironments();
      const machine = await probeMachine();
      if (options.json)
        return printJson(
          io,
          families.map((f) => describeEnvironment(f, machine)),
        );
      const rows = families.flatMap((f) => VARIANTS.map((v) => ({ family: f, variant: f.variants[v] })));
      io.out(
        formatTable(rows, [
          { header: "ENVIRONMENT", value: (r) => r.family.name },
          { header: "VARIANT", value: (r) => r.variant.variant },
          { header: "AVAILABLE", value: (r) => (r.variant.availability.status === "available" ? "yes" : "no") },
          { header: "TASKS", value: (r) => r.family.tasks.join(",") },
          { header: "BETTER", value: (r) => (r.variant.manifest.scoring.direction === "min" ? "lower" : "higher") },
          { header: "AGGREGATE", value: (r) => r.variant.manifest.scoring.aggregation },
          { header: "START", value: (r) => formatNumber(normalizationOn(r.family.name, r.variant, machine).constants?.start), align: "right" },
          { header: "REFERENCE", value: (r) => formatNumber(normalizationOn(r.family.name, r.variant, machine).constants?.reference), align: "right" },
          { header: "CALIBRATED FOR", value: (r) => Object.keys(r.variant.calibrations).join("; ") || "-" },
        ]),
      );
    });

  environments
    .command("show")
    .description("show an environment's instructions and manifest")
    .argument("<name>", "environment name")
    .option("--variant <variant>", `one of ${VARIANTS.join(", ")}`, "mini")
    .option("--task <task>", "main or hidden_score", "main")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExample:\n  rebench environments show optimize_kernel --variant gpu")
    .action(async (name: string, options: { variant: string; task: string; json?: boolean }) => {
      const machine = await probeMachine();
      const family = getEnvironment(name);
      const definition = getVariant(name, options.variant);
      const task = checkTask(family, options.task);
      const manifest = manifestForTask(definition.manifest, task);
      const instructions = instructionsOf(definition, task);
      const on = normalizationOn(family.name, definition, machine);
      if (options.json) {
        return printJson(io, {
          ...describeEnvironment(family, machine),
          variant: options.variant as Variant,
          task,
          manifest,
          normalization: on.constants ?? null,
          normalizationMissing: on.missing ?? null,
          available: definition.availability.status === "available",
          instructions,
        });
      }
      const lines = [
        `${family.title} (${family.name}), variant ${definition.variant}, task ${task}`,
        "",
        family.summary,
        "",
        `scale:         ${definition.scale}`,
        `available:     ${definition.availability.status === "available" ? "yes" : `no: ${definition.availability.reason}`}`,
        `scoring:       ${manifest.scoring.direction === "min" ? "lower" : "higher"} is better, aggregate ${manifest.scoring.aggregation}, score ${manifest.scoring.visibleToAgent ? "shown to" : "hidden from"} the agent` +
          (manifest.scoring.timingSensitive ? ", timing-sensitive (scorings on a busy machine are flagged)" : "") +
          (manifest.scoring.timedReference === undefined ? "" : `, calibrated on a quiet machine only (${manifest.scoring.timedReference})`),
        `normalization: ${on.constants ? `start ${on.constants.start}, reference ${on.constants.reference} (${normalizationLabel(on.constants)})` : `none here: ${on.missing}`}`,
        `calibrated:    ${Object.keys(definition.calibrations).join("; ") || "for no machine class"}${definition.variant === "paper" ? " (paper keeps the paper's constants on every machine)" : ""}`,
        `resources:     ${JSON.stringify(manifest.resources)}`,
        `timeouts:      score ${manifest.timeouts.scoreSeconds}s, start ${manifest.timeouts.startSeconds}s`,
        `canary:        ${manifest.canary}`,
        "",
        "Instructions:",
        instructions ?? "(not available until this variant is implemented)",
        "",
      ];
      io.out(lines.join("\n"));
    });
}

function instructionsOf(definition: VariantDefinition, task: TaskId): string | null {
  return definition.availability.status === "available" ? definition.availability.implementation.instructions(task) : null;
}
