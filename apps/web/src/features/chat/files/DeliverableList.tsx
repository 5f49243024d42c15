import type { Deliverable } from '@fed/contracts/chat-chunk';
import { useState } from 'react';
import { useAuth } from '../../../lib/auth/auth-context';
import { useMessages } from '../../../lib/i18n/messages';
import { chatText } from '../messages';
import { downloadBlob, saveAs } from './upload';

/** The agent's files of an answer; each downloads through the deliverables endpoint (docs/chat.md). */
export function DeliverableList({
  conversationId,
  messageId,
  deliverables,
}: {
  conversationId?: string;
  messageId?: string;
  deliverables: Deliverable[];
}) {
  const auth = useAuth();
  const t = useMessages(chatText);
  const [failed, setFailed] = useState(false);
  if (deliverables.length === 0 || !conversationId || !messageId) return null;
  const download = async (deliverable: Deliverable) => {
    setFailed(false);
    const query = new URLSearchParams({ messageId, filepath: deliverable.filepath });
    try {
      const blob = await downloadBlob(
        `/api/v1/conversations/${encodeURIComponent(conversationId)}/deliverables/content?${query}`,
        await auth.accessToken(),
      );
      saveAs(blob, deliverable.filename);
    } catch {
      setFailed(true);
    }
  };
  return (
    <div className="deliverables">
      <h4>{t.filesFromAgent}</h4>
      <ul aria-label={t.filesFromAgent}>
        {deliverables.map((d) => (
          <li key={d.filepath}>
            <button type="button" onClick={() => void download(d)}>
              {d.filename}
            </button>
            {d.isPrimary && <span className="muted"> {t.mainFile}</span>}
          </li>
        ))}
      </ul>
      {failed && <p role="alert">{t.downloadFailed}</p>}
    </div>
  );
}
