/**
 * @module
 * Parsers for numeric command-line options that say which flag was wrong.
 */
import { InvalidInputError } from "../core/index.js";

/** A commander option parser for a positive integer. */
export function positiveInteger(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`${flag} must be a positive integer, got "${value}"`);
    return n;
  };
}

/** A commander option parser for a positive number. */
export function positiveNumber(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidInputError(`${flag} must be a positive number, got "${value}"`);
    return n;
  };
}
