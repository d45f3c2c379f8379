/**
 * @module
 * The viewer's data, one method per thing a page asks for, over a store: the server answers requests with
 * it and `--export` writes its answers as files, so the live and the published pages read the same shapes.
 * Everything is paged: a run's trajectory comes `ITEMS_PAGE` events at a time, never the whole log.
 */

import type { RunSummary } from "../core/index.js";
import { compareNatural, NotFoundError } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import { orphanedRun } from "../store/orphaned-run.js";
import type { ComparisonView, LiveUpdate, RecordingView, RunDetail, RunsPage, TrajectoryItem, TrajectoryOutline } from "./api-types.js";
import { comparison } from "./comparison.js";
import { itemKind } from "./item-kind.js";
import { publicEvent } from "./publish.js";
import { recordingView } from "./recording.js";
import { runDetail, runRow, type ViewOptions } from "./run-detail.js";
import { runsQuery } from "./runs-query.js";
import { trajectoryItem } from "./trajectory-item.js";

/** Events in one page of a run's trajectory: page k holds seqs k·ITEMS_PAGE + 1 to (k + 1)·ITEMS_PAGE. */
export const ITEMS_PAGE = 200;
/** At most this many matches of a search are sent (the page says when there are more). */
export const SEARCH_LIMIT = 2000;

export class ViewerApi {
  constructor(
    readonly store: RunStore,
    readonly options: ViewOptions = {},
  ) {}

  async runs(params: URLSearchParams): Promise<RunsPage> {
    const query = runsQuery(params);
    const [page, facets] = await Promise.all([this.store.pageRuns(query), this.store.runFacets()]);
    const runs = await Promise.all(page.runs.map((r) => this.#row(r)));
    // Participants as people count them (model-2 before model-10) in the filter menus.
    const shown = { ...facets, participants: [...facets.participants].sort(compareNatural) };
    return { total: page.total, offset: query.offset ?? 0, limit: query.limit ?? 0, runs, facets: shown };
  }

  async run(id: string): Promise<RunDetail> {
    const detail = await runDetail(this.store, id, this.options);
    return { ...detail, row: await this.#row(await this.store.getRun(detail.row.runId), detail.row) };
  }

  async items(id: string, page: number): Promise<TrajectoryItem[]> {
    const summary = await this.store.getRun(id);
    const events = await this.store.events(summary.id, { afterSeq: page * ITEMS_PAGE, limit: ITEMS_PAGE });
    return events.map((stored) => trajectoryItem(this.#shown(stored, summary.spec)));
  }

  /** Each event's kind, from the store's type index (never the events themselves: a long run's are 100 MB). */
  async outline(id: string): Promise<TrajectoryOutline> {
    const summary = await this.store.getRun(id);
    return { kinds: (await this.store.eventTypes(summary.id)).map(itemKind) };
  }

  async item(id: string, seq: number): Promise<TrajectoryItem> {
    const summary = await this.store.getRun(id);
    const [stored] = await this.store.events(summary.id, { afterSeq: seq - 1, limit: 1 });
    if (!stored || stored.seq !== seq) throw new NotFoundError(`run ${id} has no event ${seq}`, { hint: `its events are numbered 1 to ${summary.lastSeq}` });
    return trajectoryItem(this.#shown(stored, summary.spec), { full: true });
  }

  async search(id: string, text: string): Promise<{ seqs: number[]; capped: boolean }> {
    const summary = await this.store.getRun(id);
    const seqs = await this.store.searchEvents(summary.id, text, { limit: SEARCH_LIMIT + 1 });
    return { seqs: seqs.slice(0, SEARCH_LIMIT), capped: seqs.length > SEARCH_LIMIT };
  }

  async recording(id: string): Promise<RecordingView> {
    const detail = await this.run(id);
    if (!detail.recording) throw new NotFoundError(`run ${id} has no terminal recording`, { hint: "only human runs (rebench human) record their terminal" });
    const [note] = await this.store.events(detail.row.runId, { afterSeq: detail.recording.seq - 1, limit: 1 });
    const view = note ? await recordingView(note) : undefined;
    if (!view) throw new NotFoundError(`the terminal recording of run ${id} cannot be read`);
    return view;
  }

  compare(params: URLSearchParams): Promise<ComparisonView> {
    const get = (name: string) => params.get(name)?.trim() || undefined;
    const filters = { environment: get("environment"), variant: get("variant"), participant: get("participant"), task: get("task"), budgets: get("budgets") };
    return comparison(this.store, Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)), this.options);
  }

  /** What happened in a run after event `after` (at most a few pages), and the run as it is now. */
  async live(id: string, after: number): Promise<LiveUpdate> {
    const summary = await this.store.getRun(id);
    const events = summary.lastSeq > after ? await this.store.events(summary.id, { afterSeq: after, limit: ITEMS_PAGE * 5 }) : [];
    return { row: await this.#row(summary), items: events.map((stored) => trajectoryItem(this.#shown(stored, summary.spec))) };
  }

  /** The run's row, with why it needs `rebench runs resume` where its orchestrator is gone (not in a published copy: that is now, not then). */
  async #row(summary: RunSummary, row = runRow(summary, this.options)) {
    const orphaned = this.options.publish ? undefined : await orphanedRun(this.store, summary);
    return orphaned ? { ...row, orphaned } : row;
  }

  #shown(stored: Parameters<typeof trajectoryItem>[0], spec: Parameters<typeof publicEvent>[1]) {
    return this.options.publish ? { ...stored, event: publicEvent(stored.event, spec) } : stored;
  }
}
