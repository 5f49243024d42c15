import { Suspense, lazy } from 'react';
import { DeliverableList } from '../files/DeliverableList';
import type { TurnView } from '../stream/turn-view';
import { InteractionRequest } from './InteractionRequest';
import { TaskList } from './TaskList';

// The Markdown renderer (and its highlighter) loads with the first answer, not with the first screen.
const Markdown = lazy(() => import('./Markdown'));

const PHASE_LABEL = { streaming: 'Answering…', completed: '', unfinished: 'Stopped', failed: 'Failed' } as const;

interface AnswerProps {
  messageKey: string;
  found: boolean;
  view: TurnView;
  open: boolean;
  onAnswer(text: string): void;
}

/** One answer of the agent: its steps, text, files, request and how it ended. */
export function Answer({ messageKey, found, view, open, onAnswer }: AnswerProps) {
  return (
    <div
      className={`answer${found ? ' found' : ''}`}
      data-testid="answer"
      data-phase={view.phase}
      data-message-id={messageKey}
      tabIndex={-1}
    >
      <TaskList steps={view.steps} />
      <div className="answer-text">
        <Suspense fallback={<p className="plain-text">{view.text}</p>}>
          <Markdown text={view.text} />
        </Suspense>
      </div>
      <DeliverableList
        conversationId={view.conversationId}
        messageId={view.messageId}
        deliverables={view.deliverables}
      />
      {view.interaction && <InteractionRequest interaction={view.interaction} open={open} onAnswer={onAnswer} />}
      {view.error && <p role="alert">{view.error.message}</p>}
      {PHASE_LABEL[view.phase] && <p className="answer-phase">{PHASE_LABEL[view.phase]}</p>}
    </div>
  );
}
