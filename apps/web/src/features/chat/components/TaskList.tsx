import type { Task } from '@fed/contracts/chat-chunk';
import type { Step } from '../stream/turn-view';

const STATUS_LABEL: Record<Task['status'], string> = {
  pending: 'Waiting',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
  error: 'Error',
};

function duration({ first, latest }: Step): string | undefined {
  if (latest.status === 'in_progress' || latest.status === 'pending') return undefined;
  const ms = Date.parse(latest.updatedAt) - Date.parse(first.createdAt);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The agent's steps as they start, run and end; input and result on demand. */
export function TaskList({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return null;
  return (
    <ol className="tasks" aria-label="The agent's steps">
      {steps.map((step) => {
        const { first, latest } = step;
        const took = duration(step);
        const input = first.description;
        const result = latest === first ? latest.content : (latest.content ?? latest.description);
        return (
          <li key={step.key} className="task" data-status={latest.status}>
            <details>
              <summary>
                <span className="task-name">{latest.title ?? first.title ?? latest.actionType}</span>{' '}
                <span className="task-status">{STATUS_LABEL[latest.status] ?? latest.status}</span>
                {took && <span className="task-duration"> · {took}</span>}
              </summary>
              {input && (
                <div className="task-detail">
                  <h4>Input</h4>
                  <pre>{input}</pre>
                </div>
              )}
              {result && (
                <div className="task-detail">
                  <h4>Result</h4>
                  <pre>{result}</pre>
                </div>
              )}
            </details>
          </li>
        );
      })}
    </ol>
  );
}
