import { Suspense, lazy, memo } from 'react';
import { useMessages } from '../../../lib/i18n/messages';
import { DeliverableList } from '../files/DeliverableList';
import { chatText } from '../messages';
import type { TurnView } from '../stream/turn-view';
import { turnErrorText } from '../turn-errors';
import { UiResourceView } from '../ui-resources/UiResourceView';
import { InteractionRequest } from './InteractionRequest';
import { TaskList } from './TaskList';

// The Markdown renderer (and its highlighter) loads with the first answer, not with the first screen.
const Markdown = lazy(() => import('./Markdown'));

const PHASE_LABEL = { streaming: 'answering', completed: undefined, unfinished: 'stopped', failed: 'failed' } as const;

interface AnswerProps {
  messageKey: string;
  found: boolean;
  view: TurnView;
  open: boolean;
  onAnswer(text: string): void;
}

/** One answer of the agent: its steps, text, files, request and how it ended; drawn again only when one changes. */
export const Answer = memo(function Answer({ messageKey, found, view, open, onAnswer }: AnswerProps) {
  const t = useMessages(chatText);
  const phase = PHASE_LABEL[view.phase];
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
      {view.uiResources.length > 0 && (
        <div className="ui-resources">
          {view.uiResources.map((resource, index) => (
            <UiResourceView
              key={resource.type === 'html' ? resource.tool_call_id : `data-${index}`}
              resource={resource}
              conversationId={view.conversationId}
              steps={view.steps}
            />
          ))}
        </div>
      )}
      <DeliverableList
        conversationId={view.conversationId}
        messageId={view.messageId}
        deliverables={view.deliverables}
      />
      {view.interaction && (
        <InteractionRequest
          interaction={view.interaction}
          conversationId={view.conversationId}
          open={open}
          onAnswer={onAnswer}
        />
      )}
      {view.error && <p role="alert">{turnErrorText(t, view.error)}</p>}
      {phase && <p className="answer-phase">{t[phase]}</p>}
    </div>
  );
});
