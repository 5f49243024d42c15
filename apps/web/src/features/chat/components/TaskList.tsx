import type { Task } from '@fed/contracts/chat-chunk';
import { useFormats } from '../../../lib/i18n/format';
import { useMessages } from '../../../lib/i18n/messages';
import { type ChatMessages, chatText } from '../messages';
import type { Step } from '../stream/turn-view';

const STATUS_LABEL = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'done',
  failed: 'stepFailed',
  error: 'stepError',
} as const satisfies Record<Task['status'], keyof ChatMessages>;

function durationMs({ first, latest }: Step): number | undefined {
  if (latest.status === 'in_progress' || latest.status === 'pending') return undefined;
  const ms = Date.parse(latest.updatedAt) - Date.parse(first.createdAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The agent's steps as they start, run and end; input and result on demand. */
export function TaskList({ steps }: { steps: Step[] }) {
  const t = useMessages(chatText);
  const format = useFormats();
  if (steps.length === 0) return null;
  return (
    <ol className="tasks" aria-label={t.steps}>
      {steps.map((step) => {
        const { first, latest } = step;
        const ms = durationMs(step);
        const took = ms === undefined ? undefined : format.duration(ms);
        const input = first.description;
        const result = latest === first ? latest.content : (latest.content ?? latest.description);
        return (
          <li key={step.key} className="task" data-status={latest.status}>
            <details>
              <summary>
                <span className="task-name">{latest.title ?? first.title ?? latest.actionType}</span>{' '}
                <span className="task-status">
                  {latest.status in STATUS_LABEL ? t[STATUS_LABEL[latest.status]] : latest.status}
                </span>
                {took && <span className="task-duration"> · {took}</span>}
              </summary>
              {input && (
                <div className="task-detail">
                  <h4>{t.input}</h4>
                  <pre>{input}</pre>
                </div>
              )}
              {result && (
                <div className="task-detail">
                  <h4>{t.result}</h4>
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
