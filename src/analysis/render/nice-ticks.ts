/**
 * @module
 * Round axis ticks (1, 2, 2.5 or 5 times a power of ten) covering a range, for readable chart axes.
 */

/** About `count` round ticks from `min` to at least `max` (the last tick is ≥ max). */
export function niceTicks(min: number, max: number, count = 6): number[] {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const start = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let v = start; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}
