import type { HtmlUiResource, UiResource } from '@fed/contracts/chat-chunk';
import { useQuery } from '@tanstack/react-query';
import { Suspense, lazy } from 'react';
import { apiJson } from '../../../lib/api';
import { useAuth } from '../../../lib/auth/auth-context';
import { useMessages } from '../../../lib/i18n/messages';
import { readWebConfig } from '../../../lib/web-config';
import type { Step } from '../stream/turn-view';
import { uiResourceText } from './messages';
import { PlaceList } from './PlaceList';
import { toolCallData } from './tool-call';

// The MCP Apps bridge (and its schemas) loads with the first HTML resource, not with the first screen.
const SandboxFrame = lazy(() => import('./SandboxFrame'));

interface Props {
  resource: UiResource;
  conversationId?: string;
  /** The answer's steps: a view is told what its tool call's step shows. */
  steps?: readonly Step[];
}

/**
 * A UI resource of an answer (document 2, "UI resource object"): a first-party map drawn by the app, HTML in the
 * sandbox, anything else (an unknown type or kind) as its alternative text.
 */
export function UiResourceView({ resource, conversationId, steps = [] }: Props) {
  const type: string = resource.type;
  let view = <p className="ui-resource-alt">{resource.altText}</p>;
  if (resource.type === 'data' && resource.kind === 'map') view = <PlaceList resource={resource} />;
  else if (type === 'html' && conversationId) {
    view = <SandboxedView resource={resource as HtmlUiResource} conversationId={conversationId} steps={steps} />;
  }
  return (
    <div className="ui-resource" data-testid="ui-resource" data-origin={resource.origin}>
      {view}
    </div>
  );
}

interface Retrieved {
  toolCallId: string;
  type: 'html';
  origin: string;
  mimeType: string;
  html: string;
}

function SandboxedView({
  resource,
  conversationId,
  steps,
}: {
  resource: HtmlUiResource;
  conversationId: string;
  steps: readonly Step[];
}) {
  const t = useMessages(uiResourceText);
  const auth = useAuth();
  // The HTML is fetched (document 2, GET .../ui-resources/:toolCallId) and handed to the sandbox; it never
  // enters the app's own document.
  const retrieved = useQuery({
    queryKey: ['ui-resource', conversationId, resource.tool_call_id],
    staleTime: Infinity,
    retry: 1,
    queryFn: async () =>
      apiJson<Retrieved>(
        `/api/v1/conversations/${encodeURIComponent(conversationId)}/ui-resources/${encodeURIComponent(resource.tool_call_id)}`,
        await auth.accessToken(),
      ),
  });
  if (retrieved.isPending) return <p className="muted">{t.loading}</p>;
  if (retrieved.isError || !retrieved.data.mimeType.startsWith('text/html')) {
    return (
      <div className="ui-resource-failed" role="status">
        <p>{t.failed}</p>
        <p className="ui-resource-alt">{resource.altText}</p>
      </div>
    );
  }
  return (
    <>
      <Suspense fallback={<p className="muted">{t.loading}</p>}>
        <SandboxFrame
          resource={resource}
          html={retrieved.data.html}
          sandboxUrl={readWebConfig().sandboxUrl}
          call={toolCallData(steps, resource.tool_call_id)}
        />
      </Suspense>
      {resource.origin === 'external' && <p className="ui-resource-note">{t.external(resource.server_name)}</p>}
    </>
  );
}
