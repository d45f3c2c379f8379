/**
 * @module
 * Which cgroup hierarchy a local sandbox's limits use on this machine: v1 controllers where they are
 * mounted (this project's development VM), else the unified v2 hierarchy; none without root.
 */
import { cgroupsV1Available, SandboxCgroups, type SandboxLimitGroups } from "./cgroup.js";
import { cgroupsV2Available, SandboxCgroupsV2 } from "./cgroup-v2.js";

export type CgroupVersion = "v1" | "v2";

/** The usable hierarchy, or undefined (then rlimits stand in). */
export function cgroupVersion(): CgroupVersion | undefined {
  return cgroupsV1Available() ? "v1" : cgroupsV2Available() ? "v2" : undefined;
}

/** The groups of sandbox `id` in `version`'s hierarchy (metadata written before v2 support says `true`: v1). */
export function sandboxGroups(id: string, version: CgroupVersion | boolean): SandboxLimitGroups {
  return version === "v2" ? new SandboxCgroupsV2(id) : new SandboxCgroups(id);
}
