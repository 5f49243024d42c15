import type { LoopOutcome } from './agent-loop';

/**
 * The work report of `reportMode: with` (Markdown; the plain output strips it like the answer): the
 * tools the turn used and what came of each. Only for agent-mode turns that ran tools and ended on
 * their own (completed, or stopped by the step limit); a turn that asks the user reports when it ends.
 */
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
