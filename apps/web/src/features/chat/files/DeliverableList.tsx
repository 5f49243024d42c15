import type { Deliverable } from '@fed/contracts/chat-chunk';
import { useState } from 'react';
import { useAuth } from '../../../lib/auth/auth-context';
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
  const [error, setError] = useState<string>();
  if (deliverables.length === 0 || !conversationId || !messageId) return null;
  const download = async (deliverable: Deliverable) => {
    setError(undefined);
    const query = new URLSearchParams({ messageId, filepath: deliverable.filepath });
    try {
      const blob = await downloadBlob(
        `/api/v1/conversations/${encodeURIComponent(conversationId)}/deliverables/content?${query}`,
        await auth.accessToken(),
      );
      saveAs(blob, deliverable.filename);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <div className="deliverables">
      <h4>Files from the agent</h4>
      <ul aria-label="Files from the agent">
        {deliverables.map((d) => (
          <li key={d.filepath}>
            <button type="button" onClick={() => void download(d)}>
              {d.filename}
            </button>
            {d.isPrimary && <span className="muted"> (main)</span>}
          </li>
        ))}
      </ul>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}
