/**
 * @module
 * A score-log entry's message (what the grader told the agent: `{"is_valid": true, "frac_flops_used": 0.41}`)
 * as text a person reads, `is_valid: yes · frac_flops_used: 0.41`, for the score log's table, its chart and
 * the trajectory. Plain strings, no DOM and no Node: the server and the pages both use it.
 */

/** `key: value` pairs (nested keys joined with dots, lists with commas), separated by `separator`; "" when empty. */
export function scoreMessageText(message: Readonly<Record<string, unknown>>, separator = " · "): string {
  const pairs: string[] = [];
  const walk = (prefix: string, value: unknown): void => {
    if (isRecord(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0 && prefix !== "") pairs.push(`${prefix}: none`);
      for (const [key, inner] of entries) walk(prefix === "" ? key : `${prefix}.${key}`, inner);
    } else if (Array.isArray(value) && value.some((v) => isRecord(v) || Array.isArray(v))) {
      for (const [i, inner] of value.entries()) walk(`${prefix}[${i + 1}]`, inner);
    } else {
      pairs.push(prefix === "" ? plain(value) : `${prefix}: ${plain(value)}`);
    }
  };
  walk("", message);
  return pairs.join(separator);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function plain(value: unknown): string {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(plain).join(", ");
  return String(value);
}
