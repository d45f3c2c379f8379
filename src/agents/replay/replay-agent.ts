/**
 * @module
 * The `replay` scaffold: plays a recorded list of tool calls through the same tool API an agent uses. The
 * environments apply their reference solution with it (calibration, the offline main job), `--actions
 * start` scores the starting solution as it is, and tests drive runs with it deterministically. After an
 * orchestrator restart it continues after the last step its run's history shows.
 */
import type { Agent, AgentSession, ReplayStep } from "../../core/index.js";

export class ReplayAgent implements Agent {
  constructor(readonly steps: readonly ReplayStep[]) {}

  async run(session: AgentSession): Promise<void> {
    const history = await session.history();
    const done = history.filter(({ event }) => event.type === "action" || event.type === "generation").length;
    for (const step of this.steps.slice(done)) {
      if (session.signal.aborted) return;
      if (step.tool === "submit") {
        await session.tools.submit(step.input);
        return;
      }
      await play(session, step);
    }
  }
}

async function play(session: AgentSession, step: Exclude<ReplayStep, { tool: "submit" }>): Promise<void> {
  const { tools } = session;
  switch (step.tool) {
    case "bash":
      await tools.bash(step.input);
      return;
    case "python":
      await tools.python(step.input);
      return;
    case "score":
      await tools.score();
      return;
    case "score_log":
      await tools.scoreLog();
      return;
    case "generate":
      await session.recordGeneration({ model: "replay", ...step.input, costUsd: step.input.costUsd ?? 0 });
      return;
  }
}
