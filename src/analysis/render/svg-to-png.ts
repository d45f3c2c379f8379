/**
 * @module
 * Rasterize an SVG to PNG with resvg (a Rust renderer shipped as a prebuilt npm binary: no browser, no
 * canvas, works offline). Text uses DejaVu Sans from fonts-dejavu-core when installed, else the
 * system's fonts. resvg is loaded on first use, so commands that draw nothing never load it.
 */
import { existsSync } from "node:fs";

export interface SvgToPngOptions {
  /** Output width in pixels; the height follows the SVG's aspect ratio. Default 1800 (2× a 900-px chart). */
  width?: number;
}

const FONT_FILES = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"];

export async function svgToPng(svg: string, options: SvgToPngOptions = {}): Promise<Buffer> {
  const { Resvg } = await import("@resvg/resvg-js");
  const resvg = new Resvg(svg, { fitTo: { mode: "width", value: options.width ?? 1800 }, background: "#ffffff", font: fontOptions() });
  return resvg.render().asPng();
}

/**
 * The box that everything visible in `svg` covers, text laid out as the PNG renders it, in SVG pixels and
 * not clipped to the canvas (so a label that runs off the edge shows as a box wider than the canvas).
 * Undefined when nothing is drawn.
 */
export async function drawnBox(svg: string): Promise<{ left: number; top: number; right: number; bottom: number } | undefined> {
  const { Resvg } = await import("@resvg/resvg-js");
  const box = new Resvg(svg, { font: fontOptions() }).getBBox();
  return box && { left: box.x, top: box.y, right: box.x + box.width, bottom: box.y + box.height };
}

function fontOptions() {
  const fontFiles = FONT_FILES.filter((f) => existsSync(f));
  return { loadSystemFonts: fontFiles.length === 0, fontFiles, defaultFontFamily: "DejaVu Sans" };
}
