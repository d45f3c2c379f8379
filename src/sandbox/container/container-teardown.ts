/**
 * @module
 * The end of a container sandbox: the container is removed with its anonymous volumes (the workspace, the
 * protected directory, /tmp, /opt/rebench), then each volume is checked again, in the engine and on this
 * host's disk, because an engine may remove the container and only log that a volume's files would not go
 * (podman 4.3 then forgets the volume and leaves its folder). A volume still there is removed again, and
 * where its files lie on this host (a local engine) they are removed by rebench, whatever the agent left in
 * them (src/sandbox/remove-tree.ts). What still stays is named in a SandboxTeardownError.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { removeTree } from "../remove-tree.js";
import { SandboxTeardownError } from "../sandbox.js";
import { type DockerApi, EngineError } from "./docker-api.js";

export interface Volume {
  name: string;
  /** Where the engine keeps its files (on the engine's host). */
  source: string | undefined;
}

/**
 * Remove container `container` (id or name) of sandbox `id` and its volumes; nothing there is no error.
 * `known.volumes`: the volumes an earlier attempt found (anonymous volumes are named only by their
 * container, so a retry after the container went needs them); filled in here.
 */
export async function tearDownContainer(api: DockerApi, id: string, container: string, known: { volumes?: Volume[] } = {}): Promise<void> {
  const engine = (await api.isPodman()) ? "podman" : "docker";
  let volumes: Volume[];
  try {
    volumes = await containerVolumes(api, container);
    known.volumes = volumes;
  } catch (error) {
    if (!(error instanceof EngineError && error.status === 404)) {
      const hint = `${engine} rm -f -v ${container}`;
      throw new SandboxTeardownError(`sandbox ${id}: the container engine did not answer: ${message(error)}`, [`container ${container}`], hint, {
        cause: error,
      });
    }
    volumes = known.volumes ?? [];
  }
  const problems: string[] = [];
  try {
    await api.json("DELETE", `/containers/${container}?force=true&v=true`);
  } catch (error) {
    if (!(error instanceof EngineError && error.status === 404)) problems.push(`removing the container: ${message(error)}`);
  }
  if (problems.length > 0) {
    const names = volumes.map((v) => v.name).join(" ");
    throw new SandboxTeardownError(
      `sandbox ${id}: container ${container} could not be removed: ${problems.join("; ")}`,
      [`container ${container}`, ...volumes.map(describe)],
      `${engine} rm -f -v ${container}${names ? `; ${engine} volume rm -f ${names}` : ""}`,
    );
  }
  const left: Volume[] = [];
  for (const volume of volumes) {
    const why = await removeVolume(api, volume);
    if (why !== undefined) {
      left.push(volume);
      problems.push(`volume ${volume.name}: ${why}`);
    }
  }
  if (left.length > 0) {
    throw new SandboxTeardownError(
      `sandbox ${id}: its container is removed, but not all of its volumes: ${problems.join("; ")}`,
      left.map(describe),
      `${engine} volume rm -f ${left.map((v) => v.name).join(" ")}` +
        (left.some((v) => v.source) ? ` (as root, first: rm -rf --one-file-system ${left.flatMap((v) => (v.source ? [v.source] : [])).join(" ")})` : ""),
    );
  }
}

/** The volumes of container `container` (id or name), as the engine lists its mounts; EngineError 404 when it is gone. */
export async function containerVolumes(api: DockerApi, container: string): Promise<Volume[]> {
  const info = await api.json<{ Mounts?: { Type?: string; Name?: string; Source?: string }[] | null }>("GET", `/containers/${container}/json`);
  return (info.Mounts ?? []).flatMap((m) => (m.Type === "volume" && m.Name ? [{ name: m.Name, source: m.Source || undefined }] : []));
}

/** The volume's own folder on the engine's host (`…/volumes/NAME`, which holds `_data`), or its files' folder, or undefined. */
export function volumeFolder(volume: Volume): string | undefined {
  if (!volume.source) return undefined;
  const parent = path.dirname(volume.source);
  return path.basename(volume.source) === "_data" && path.basename(parent) === volume.name ? parent : volume.source;
}

/**
 * Make sure a volume is gone, from the engine and from this host's disk: undefined when it is, else why not.
 * podman forgets a volume whose files it could not remove (it only logs it), so its folder is checked too.
 */
async function removeVolume(api: DockerApi, volume: Volume): Promise<string | undefined> {
  const filesLeft = () => volume.source !== undefined && existsSync(volume.source);
  if (!(await volumeExists(api, volume.name)) && !filesLeft()) return undefined;
  let why: string | undefined;
  try {
    await api.json("DELETE", `/volumes/${encodeURIComponent(volume.name)}?force=true`);
  } catch (error) {
    if (!(error instanceof EngineError && error.status === 404)) why = message(error);
  }
  if (!(await volumeExists(api, volume.name)) && !filesLeft()) return undefined;
  if (volume.source && filesLeft()) {
    // The engine keeps the files on this host: remove them ourselves (any depth, any permissions), with the
    // volume's own folder (…/volumes/NAME/_data: NAME) once the engine has forgotten it, then the volume.
    const forgotten = !(await volumeExists(api, volume.name));
    const folder = forgotten ? (volumeFolder(volume) ?? volume.source) : volume.source;
    const removal = await removeTree(folder);
    if (!removal.removed) return `${why ?? "the engine left its files"}; its files at ${folder}: ${removal.error}`;
    if (!forgotten) await api.json("DELETE", `/volumes/${encodeURIComponent(volume.name)}?force=true`).catch(() => undefined);
    if (!(await volumeExists(api, volume.name)) && !filesLeft()) return undefined;
  }
  return why ?? "the engine kept it";
}

async function volumeExists(api: DockerApi, name: string): Promise<boolean> {
  try {
    await api.json("GET", `/volumes/${encodeURIComponent(name)}`);
    return true;
  } catch (error) {
    if (error instanceof EngineError && error.status === 404) return false;
    return true;
  }
}

function describe(volume: Volume): string {
  return `volume ${volume.name}${volume.source ? ` (${volume.source})` : ""}`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
