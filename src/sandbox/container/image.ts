/**
 * @module
 * The container sandbox's image, without any registry: scripts/build-sandbox-image builds a Debian
 * root filesystem tarball (cached under $REBENCH_HOME/images, named by the hash of the script), and the
 * first container backend that needs the image imports it into its engine through the API.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { rebenchHome, UnavailableError } from "../../core/index.js";
import { runtimeFiles } from "../layout.js";
import { type DockerApi, EngineError } from "./docker-api.js";

export const IMAGE_REPOSITORY = "localhost/rebench-sandbox";

/** The image this checkout's build script produces: tag, reference and cached tarball. */
export function sandboxImage(): { tag: string; reference: string; tarball: string; script: string } {
  const script = path.join(runtimeFiles().repoRoot, "scripts", "build-sandbox-image");
  const tag = createHash("sha256").update(readFileSync(script)).digest("hex").slice(0, 12);
  return { tag, reference: `${IMAGE_REPOSITORY}:${tag}`, tarball: path.join(rebenchHome(), "images", `rebench-sandbox-${tag}.tar`), script };
}

/** Make sure the engine has the image; import the cached tarball if it does not. Returns the reference. */
export async function ensureImage(api: DockerApi): Promise<string> {
  const image = sandboxImage();
  if (await hasImage(api, image.reference)) return image.reference;
  if (!existsSync(image.tarball)) {
    throw new UnavailableError(`the container sandbox image ${image.reference} is not built yet`, {
      hint: `run ${image.script} (as root; about a minute) and try again`,
    });
  }
  const answer = await api.upload(`/images/create?fromSrc=-&repo=${encodeURIComponent(IMAGE_REPOSITORY)}&tag=${image.tag}`, createReadStream(image.tarball));
  // Engines differ in whether they apply `tag` on import: tag the imported id explicitly.
  const id = /sha256:[0-9a-f]{64}/.exec(answer)?.[0];
  if (id && !(await hasImage(api, image.reference))) {
    await api.json("POST", `/images/${id}/tag?repo=${encodeURIComponent(IMAGE_REPOSITORY)}&tag=${image.tag}`);
  }
  if (!(await hasImage(api, image.reference)))
    throw new UnavailableError(`importing ${image.tarball} did not produce ${image.reference}: ${answer.slice(0, 500)}`);
  return image.reference;
}

async function hasImage(api: DockerApi, reference: string): Promise<boolean> {
  try {
    await api.json("GET", `/images/${encodeURIComponent(reference)}/json`);
    return true;
  } catch (error) {
    if (error instanceof EngineError && error.status === 404) return false;
    throw error;
  }
}
