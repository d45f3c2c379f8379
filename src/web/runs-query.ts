/**
 * @module
 * The runs list's query string (`?environment=…&state=running,paused&min=0.5&sort=normalized&desc=1&offset=50`)
 * as a store query, checked: a bad value is refused with what would be accepted. The browser builds the same
 * string, so a list's URL can be shared.
 */
import { InvalidInputError, RUN_STATES, type RunState } from "../core/index.js";
import { RUN_SORT_KEYS, type RunPageQuery, type RunSortKey } from "../store/index.js";

/** Runs on a page when the query names no limit, and the most a page may hold. */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

export function runsQuery(params: URLSearchParams): RunPageQuery {
  const query: RunPageQuery = {};
  const text = (name: string) => {
    const value = params.get(name)?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const environment = text("environment");
  if (environment) query.environment = environment;
  const variant = text("variant");
  if (variant) query.variant = variant as RunPageQuery["variant"];
  const participant = text("participant");
  if (participant) query.participant = participant;
  const states = text("state");
  if (states) {
    query.states = states.split(",").map((s) => {
      if (!(RUN_STATES as readonly string[]).includes(s))
        throw new InvalidInputError(`state "${s}" is not a run state`, { hint: `one of ${RUN_STATES.join(", ")}` });
      return s as RunState;
    });
  }
  const number = (name: string, min = -Infinity, max = Infinity) => {
    const value = text(name);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new InvalidInputError(`${name} must be a number${min > -Infinity ? ` from ${min}` : ""}${max < Infinity ? ` to ${max}` : ""}, got "${value}"`);
    return n;
  };
  const minScore = number("min");
  if (minScore !== undefined) query.minScore = minScore;
  const maxScore = number("max");
  if (maxScore !== undefined) query.maxScore = maxScore;
  const sort = text("sort");
  if (sort) {
    if (!(RUN_SORT_KEYS as readonly string[]).includes(sort))
      throw new InvalidInputError(`cannot sort by "${sort}"`, { hint: `sort by one of ${RUN_SORT_KEYS.join(", ")}` });
    query.sort = sort as RunSortKey;
  }
  query.descending = text("desc") === "1";
  query.offset = Math.floor(number("offset", 0) ?? 0);
  query.limit = Math.floor(number("limit", 1, MAX_PAGE) ?? DEFAULT_PAGE);
  return query;
}
