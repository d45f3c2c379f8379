/**
 * @module
 * Validate untrusted data against a schema and fail with an error a person can act on.
 */
import type { z } from "zod";
import { InvalidInputError } from "./errors.js";

/** Parse `value` with `schema`; on failure throw an InvalidInputError naming `what` and every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidInputError(`${what} is invalid:\n${formatIssues(result.error)}`);
}

/** One line per issue: `  - path.to.field: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
      return `  - ${path}: ${issue.message}`;
    })
    .join("\n");
}
