/**
 * @module
 * A store URL as messages, run markers and reports show it: without its password.
 */

/** `postgres://user:secret@host/db` as `postgres://user@host/db`: what messages and run markers show. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, "@");
  }
}
