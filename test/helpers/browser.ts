/**
 * @module
 * A real browser for end-to-end tests: Debian's chromium (scripts/apt-packages.txt) driven by
 * playwright-core, headless, without the sandbox (tests run as root) and with Chromium's background
 * networking off (this machine's closed network refuses it, many times a start). And a check that a
 * screenshot shows something: a PNG decoded by the browser, its pixels counted.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium; scripts/install-system installs it)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
      "--metrics-recording-only",
    ],
  });
}

/** Distinct colours (of a 64 × 64 sample grid) and the share of the most common one in a PNG. */
export async function pixelStats(browser: Browser, png: Buffer): Promise<{ colours: number; dominant: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (b64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${b64}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext("2d")!;
      context.drawImage(image, 0, 0);
      const counts = new Map<number, number>();
      let n = 0;
      for (let gy = 0; gy < 64; gy++) {
        for (let gx = 0; gx < 64; gx++) {
          const [r, g, b] = context.getImageData(Math.floor((gx + 0.5) * (image.width / 64)), Math.floor((gy + 0.5) * (image.height / 64)), 1, 1).data;
          const key = (r! << 16) | (g! << 8) | b!;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          n++;
        }
      }
      return { colours: counts.size, dominant: Math.max(...counts.values()) / n };
    }, png.toString("base64"));
  } finally {
    await page.close();
  }
}

/**
 * Open the viewer's page at `hash` and wait until it is drawn for that address: after a change of the hash
 * alone the previous page stays up until the new one draws (src/web/client/main.ts marks `data-shown`).
 */
export async function openViewerPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => {
    const app = document.querySelector<HTMLElement>("main#app");
    return app !== null && app.dataset.shown === location.hash && app.querySelector(":scope > :not(.loading)") !== null;
  });
}
