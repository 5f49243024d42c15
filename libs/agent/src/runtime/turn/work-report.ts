import type { LoopOutcome } from './agent-loop';

/** The `reportMode: with` report of tools used, for agent-mode turns that ran tools and ended on their own. */
export function workReport(outcome: LoopOutcome): string | undefined {
  if (outcome.kind === 'interaction' || outcome.toolRuns.length === 0) return undefined;
  const calls = outcome.toolRuns.length === 1 ? '1 tool call' : `${outcome.toolRuns.length} tool calls`;
  const steps = outcome.steps === 1 ? '1 model call' : `${outcome.steps} model calls`;
  const lines = outcome.toolRuns.map((run) => {
    const said = run.label.description ? `${run.label.title} — ${run.label.description}` : run.label.title;
    return `- ${said}${run.status === 'failed' ? ' (failed)' : ''}`;
  });
  if (outcome.kind === 'step_limit') {
    lines.push(`- Stopped after ${steps}, the most one turn may make; the answer may be incomplete`);
  }
  return `**Work report** (${calls}, ${steps})\n\n${lines.join('\n')}\n`;
}
