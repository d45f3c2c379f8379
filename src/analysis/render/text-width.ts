/**
 * @module
 * How wide a line of text is drawn in DejaVu Sans (the font the PNG renderer loads), from the font's
 * advance widths for printable ASCII, so labels can be wrapped or shortened to fit before they are drawn.
 * Any other character counts as one em (wider than any ASCII glyph but `%`, `W` and `@` in bold), so an
 * estimate errs on the wide side; kerning only narrows text.
 */

// Advance widths of U+0020 … U+007E in thousandths of an em, read from DejaVuSans.ttf and
// DejaVuSans-Bold.ttf (fonts-dejavu-core 2.37, 2,048 units per em).
// prettier-ignore
const REGULAR = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838,
  531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390,
  838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337,
  636, 838,
];
// prettier-ignore
const BOLD = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838,
  580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457,
  838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365,
  712, 838,
];
const OTHER = 1000;

export interface TextWidthOptions {
  /** Bold (DejaVu Sans Bold). Default false. */
  bold?: boolean;
}

/** The width in SVG pixels of `text` drawn at `fontSize` pixels. */
export function textWidth(text: string, fontSize: number, options: TextWidthOptions = {}): number {
  const table = options.bold ? BOLD : REGULAR;
  let thousandths = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    thousandths += code >= 32 && code < 127 ? table[code - 32]! : OTHER;
  }
  return (thousandths * fontSize) / 1000;
}
