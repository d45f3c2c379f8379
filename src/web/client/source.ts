/**
 * @module
 * Where the pages get their data: the server's API (`live`), or the files of an export beside index.html
 * (`static`: the runs list is filtered, sorted and paged here, search looks through the pages' previews, and
 * nothing is live). The pages see one interface either way.
 */
import type { ComparisonView, LiveUpdate, RecordingView, RunDetail, RunRow, RunsPage, TrajectoryItem, TrajectoryOutline, ViewerMeta } from "../api-types.js";

export const ITEMS_PAGE = 200;

export interface Source {
  readonly mode: "live" | "static";
  meta(): Promise<ViewerMeta>;
  runs(query: URLSearchParams): Promise<RunsPage>;
  run(id: string): Promise<RunDetail>;
  items(id: string, page: number): Promise<TrajectoryItem[]>;
  /** Each event's kind (index 0 is seq 1). */
  outline(id: string): Promise<TrajectoryOutline>;
  item(id: string, seq: number): Promise<TrajectoryItem>;
  search(id: string, text: string, events: number): Promise<{ seqs: number[]; capped: boolean }>;
  recording(id: string): Promise<RecordingView>;
  compare(query: URLSearchParams): Promise<ComparisonView>;
  /** Follow a run: `onUpdate` with what came after `after`; returns a function that stops following. */
  follow(id: string, after: number, onUpdate: (update: LiveUpdate) => void, onEnd: () => void): () => void;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = (await response.json()) as { error?: string; hint?: string };
      if (body.error) message = body.hint ? `${body.error} (${body.hint})` : body.error;
    } catch {
      // not JSON: keep the status line
    }
    throw new Error(message);
  }
  return (await response.json()) as T;
}

const enc = encodeURIComponent;

export class LiveSource implements Source {
  readonly mode = "live" as const;
  meta = () => getJson<ViewerMeta>("api/meta");
  runs = (query: URLSearchParams) => getJson<RunsPage>(`api/runs?${query}`);
  run = (id: string) => getJson<RunDetail>(`api/runs/${enc(id)}`);
  items = (id: string, page: number) => getJson<TrajectoryItem[]>(`api/runs/${enc(id)}/items?page=${page}`);
  item = (id: string, seq: number) => getJson<TrajectoryItem>(`api/runs/${enc(id)}/items/${seq}`);
  outline = (id: string) => getJson<TrajectoryOutline>(`api/runs/${enc(id)}/outline`);
  search = (id: string, text: string) => getJson<{ seqs: number[]; capped: boolean }>(`api/runs/${enc(id)}/search?q=${enc(text)}`);
  recording = (id: string) => getJson<RecordingView>(`api/runs/${enc(id)}/recording`);
  compare = (query: URLSearchParams) => getJson<ComparisonView>(`api/compare?${query}`);

  follow(id: string, after: number, onUpdate: (update: LiveUpdate) => void, onEnd: () => void): () => void {
    const events = new EventSource(`api/runs/${enc(id)}/live?after=${after}`);
    events.addEventListener("update", (event) => onUpdate(JSON.parse((event as MessageEvent<string>).data) as LiveUpdate));
    events.addEventListener("end", () => {
      events.close();
      onEnd();
    });
    return () => events.close();
  }
}

export class StaticSource implements Source {
  readonly mode = "static" as const;
  #rows: Promise<RunsPage> | undefined;

  meta = () => getJson<ViewerMeta>("data/meta.json");
  run = (id: string) => getJson<RunDetail>(`data/runs/${enc(id)}/run.json`);
  items = (id: string, page: number) => getJson<TrajectoryItem[]>(`data/runs/${enc(id)}/items-${page}.json`);
  item = (id: string, seq: number) => getJson<TrajectoryItem>(`data/runs/${enc(id)}/item-${seq}.json`);
  outline = (id: string) => getJson<TrajectoryOutline>(`data/runs/${enc(id)}/outline.json`);
  recording = (id: string) => getJson<RecordingView>(`data/runs/${enc(id)}/recording.json`);
  compare = () => getJson<ComparisonView>("data/compare.json");

  async runs(query: URLSearchParams): Promise<RunsPage> {
    this.#rows ??= getJson<RunsPage>("data/runs.json");
    const all = await this.#rows;
    return { ...queryRows(all.runs, query), facets: all.facets };
  }

  async search(id: string, text: string, events: number): Promise<{ seqs: number[]; capped: boolean }> {
    const needle = text.toLowerCase();
    const seqs: number[] = [];
    for (let page = 0; page * ITEMS_PAGE < events; page++) {
      for (const item of await this.items(id, page)) {
        const haystack = [item.title, ...item.badges, ...item.parts.map((p) => p.text)].join("\n").toLowerCase();
        if (haystack.includes(needle)) seqs.push(item.seq);
      }
    }
    return { seqs, capped: false };
  }

  follow(): () => void {
    return () => undefined;
  }
}

const SORTS: Record<string, (r: RunRow) => string | number | null> = {
  created: (r) => r.createdAt,
  updated: (r) => r.updatedAt,
  environment: (r) => r.environment,
  variant: (r) => r.variant,
  participant: (r) => r.participant,
  state: (r) => r.state,
  working: (r) => r.workingSeconds,
  scores: (r) => r.scoreCalls,
  raw: (r) => r.rawScore ?? r.rawScoreSoFar,
  normalized: (r) => r.normalizedScore,
};

/** The runs list's query over rows in memory, as the store answers it (missing values last). */
export function queryRows(rows: readonly RunRow[], query: URLSearchParams): Omit<RunsPage, "facets"> {
  const get = (name: string) => query.get(name) || undefined;
  const states = get("state")?.split(",");
  const min = get("min") === undefined ? undefined : Number(get("min"));
  const max = get("max") === undefined ? undefined : Number(get("max"));
  const kept = rows.filter(
    (r) =>
      (!get("environment") || r.environment === get("environment")) &&
      (!get("variant") || r.variant === get("variant")) &&
      (!get("participant") || r.participant === get("participant")) &&
      (!states || states.includes(r.state)) &&
      (min === undefined || (r.normalizedScore !== null && r.normalizedScore >= min)) &&
      (max === undefined || (r.normalizedScore !== null && r.normalizedScore <= max)),
  );
  const key = SORTS[get("sort") ?? "created"] ?? SORTS.created!;
  const sign = get("desc") === "1" ? -1 : 1;
  kept.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return (x < y ? -1 : x > y ? 1 : 0) * sign || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);
  });
  const offset = Number(get("offset") ?? 0);
  const limit = Number(get("limit") ?? 50);
  return { total: kept.length, offset, limit, runs: kept.slice(offset, offset + limit) };
}
