/**
 * @module
 * A seeded, fast pseudo-random generator (xoshiro128**, seeded through splitmix32) with named streams:
 * the stream for a key depends only on the seed and the key, so a participant's bootstrap draws do not
 * change when other participants are added to a report. `fillIndices` draws many exactly uniform
 * integers in one tight loop (two per 32-bit output, Lemire's multiply-and-reject), which is where a
 * bootstrap spends its time.
 */

export interface RandomSource {
  /** A uniform number in [0, 1) with 32 bits of randomness. */
  next(): number;
  /** Fill `target` with independent, exactly uniform integers in [0, n), 1 ≤ n < 2^32. */
  fillIndices(target: Uint32Array, n: number): void;
}

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
  // The state lives in a typed array between calls; inside a loop it is kept in locals (registers).
  const state = new Int32Array([splitmix(), splitmix(), splitmix(), splitmix()]);
  if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1;

  // Module-level functions over the state, not closures per generator, so V8 optimizes each once.
  return { next: () => nextUniform(state), fillIndices: (target, n) => fillIndices(state, target, n) };
}

function nextUniform(state: Int32Array): number {
  const b = state[1]!;
  const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
  const t = b << 9;
  state[2]! ^= state[0]!;
  state[3]! ^= b;
  state[1]! ^= state[2]!;
  state[0]! ^= state[3]!;
  state[2]! ^= t;
  state[3] = rotl(state[3]!, 11);
  return result / 4294967296;
}

function fillIndices(state: Int32Array, target: Uint32Array, n: number): void {
  if (!(Number.isInteger(n) && n >= 1 && n < 2 ** 32)) throw new RangeError(`fillIndices needs an integer 1 <= n < 2^32, got ${n}`);
  if (n > 0xffff) {
    for (let i = 0; i < target.length; i++) target[i] = Math.floor(nextUniform(state) * n);
    return;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  // Lemire: for a 16-bit h, (h·n) >>> 16 is uniform in [0, n) once the low halves below (2^16 − n) mod n are rejected.
  const threshold = (0x10000 - n) % n;
  let i = 0;
  // The state is written back at the top of every step, not once after the loop: code after a loop has no
  // type feedback when V8 optimizes the loop on its first call, so the optimized loop was thrown away at its
  // exit on every call (~150 per report).
  for (;;) {
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
    if (i === target.length) return;
    const word = Math.imul(rotl(Math.imul(b, 5), 7), 9);
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    const high = (word >>> 16) * n;
    if ((high & 0xffff) >= threshold) target[i++] = high >>> 16;
    if (i === target.length) continue;
    const low = (word & 0xffff) * n;
    if ((low & 0xffff) >= threshold) target[i++] = low >>> 16;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
