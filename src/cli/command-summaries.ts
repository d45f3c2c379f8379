/**
 * @module
 * Each command's one-line summary, in the order `rebench --help` lists them. main.ts lists the commands from
 * here without loading their modules (a command's module, and what it imports, loads only when it runs);
 * each command's module takes its description from here too, so the two cannot differ.
 */
export const COMMAND_SUMMARIES = {
  main: "run the offline main job: every available mini environment, start and reference, then the report",
  environments: "list and show the environments",
  runs: "list and inspect stored runs; export them (METR JSON Lines, Inspect eval logs)",
  serve: "the run viewer in the browser: runs, trajectories, score logs and the comparison; --export writes static pages",
  report: "compare agents and humans: best-of-k over total time budgets, bootstrap CIs, cost, plots",
  start: "materialize an environment in a directory and start a run there (for humans and development)",
  score: "score the solution in a directory made by `rebench start`, as the agent's score action does",
  doctor: "check which sandbox backends work here and whether isolation holds (by probing a real sandbox)",
  run: "run agents (modular, aide or replay) on an environment variant and print their scores",
  human: "the human baseline mode: an interactive shell in the environment's sandbox, with score and submit commands",
  calibrate: "run the starting and reference solutions N times each; print mean ± std of their raw scores and the machine; check the 10× rule",
  exploits: "run every exploit attempt in environments/NAME/exploits/ as a real run and report each as blocked or not",
  review: "check finished runs for reward hacking (score and trajectory signals, an optional LLM monitor) and record a verdict on each",
  assets: "build and list the offline assets (corpus, tokenizers, token files, small GPTs)",
  store: "copy runs between run stores (a SQLite file, a PostgreSQL database), either way, without loss",
} as const;

export type CommandName = keyof typeof COMMAND_SUMMARIES;
