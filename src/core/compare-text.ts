/**
 * @module
 * One order for names in tables and reports: by UTF-16 code units, the order of `Array.prototype.sort`
 * without a comparator and of Python's `sorted` for the names rebench sorts. Not `localeCompare`: its first
 * call loads ICU's collation data (13 ms here, a twentieth of a whole `rebench report`), and a locale's
 * order would make the same report differ between machines.
 */

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
