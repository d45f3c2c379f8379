/**
 * @module
 * A seeded, fast pseudo-random generator (xoshiro128**, seeded through splitmix32) with named streams:
 * the stream for a key depends only on the seed and the key, so a participant's bootstrap draws do not
 * change when other participants are added to a report.
 */

/** Uniform numbers in [0, 1) with 32 bits of randomness. */
export type RandomSource = () => number;

/** A generator for `seed` and `stream` (any string, e.g. `participant|environment|limit`). */
export function seededRandom(seed: number, stream = ""): RandomSource {
  let h = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193) >>> 0; // FNV-1a
  let x = (h ^ Math.trunc(seed / 2 ** 32)) >>> 0;
  const splitmix = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  if ((a | b | c | d) === 0) a = 1;
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4294967296;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
