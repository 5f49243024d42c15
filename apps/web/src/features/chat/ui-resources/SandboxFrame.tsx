import type { HtmlUiResource } from '@fed/contracts/chat-chunk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocale } from '../../../lib/i18n/locale';
import { useMessages } from '../../../lib/i18n/messages';
import { LinkDialog } from './LinkDialog';
import { uiResourceText } from './messages';
import {
  type SandboxSession,
  type ToolCallData,
  type ViewContext,
  clampHeight,
  connectSandbox,
  declaredCsp,
  pageTheme,
  proxyUrl,
} from './sandbox-bridge';

/** Without word from the sandbox by then, the view is given up and its text shown. */
const PROXY_READY_TIMEOUT_MS = 15_000;
const DEFAULT_HEIGHT = 160;

/**
 * Before a view says its size: the height it prefers (`meta.preferredHeight`), else, for first-party UI (no
 * script, so it never says), about one row per line of its alternative text, else a default.
 */
function initialHeight(resource: HtmlUiResource): number {
  const preferred = resource.meta?.preferredHeight;
  if (typeof preferred === 'number' && Number.isFinite(preferred)) return clampHeight(preferred);
  if (resource.origin === 'first-party') return clampHeight(48 + 56 * resource.altText.split('\n').length);
  return DEFAULT_HEIGHT;
}

interface Pending {
  url: URL;
  resolve(open: boolean): void;
}

interface Props {
  resource: HtmlUiResource;
  html: string;
  sandboxUrl: string;
  call: ToolCallData;
}

/** An HTML UI resource in the sandbox: a frame of the sandbox origin that holds the view in a frame of its own. */
export default function SandboxFrame({ resource, html, sandboxUrl, call }: Props) {
  const t = useMessages(uiResourceText);
  const { locale } = useLocale();
  const frame = useRef<HTMLIFrameElement>(null);
  const session = useRef<SandboxSession | undefined>(undefined);
  const [height, setHeight] = useState(() => initialHeight(resource));
  const [failed, setFailed] = useState(false);
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const source = resource.origin === 'external' ? resource.server_name : t.ourView;
  const context = useRef<ViewContext>({ theme: pageTheme(), locale, width: 0 });

  const asking = useRef<Pending | undefined>(undefined);
  const confirmLink = useCallback(
    (url: URL) =>
      new Promise<boolean>((resolve) => {
        asking.current = { url, resolve };
        setPending(asking.current);
      }),
    [],
  );
  const decide = useCallback((open: boolean) => {
    const question = asking.current;
    asking.current = undefined;
    setPending(undefined);
    question?.resolve(open);
  }, []);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const csp = declaredCsp(resource.meta);
    const update = (change: Partial<ViewContext>) => {
      context.current = { ...context.current, ...change };
      session.current?.update(context.current);
    };
    context.current = { ...context.current, width: element.clientWidth };
    const timeout = window.setTimeout(() => setFailed(true), PROXY_READY_TIMEOUT_MS);
    session.current = connectSandbox({
      frame: element,
      sandboxOrigin: new URL(sandboxUrl).origin,
      src: proxyUrl(sandboxUrl, csp),
      html,
      csp,
      context: context.current,
      tool: { callId: resource.tool_call_id, name: resource.tool_name },
      call,
      onProxyReady: () => window.clearTimeout(timeout),
      onSize: setHeight,
      confirmLink,
    });
    // The theme lives on <html data-theme> (else the system's), the width on the frame.
    const themeObserver = new MutationObserver(() => update({ theme: pageTheme() }));
    themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const system = window.matchMedia('(prefers-color-scheme: dark)');
    const onSystem = () => update({ theme: pageTheme() });
    system.addEventListener('change', onSystem);
    const sizeObserver = new ResizeObserver(() => update({ width: element.clientWidth }));
    sizeObserver.observe(element);
    return () => {
      window.clearTimeout(timeout);
      themeObserver.disconnect();
      system.removeEventListener('change', onSystem);
      sizeObserver.disconnect();
      session.current?.close();
      session.current = undefined;
    };
    // One view per resource: its HTML and tool call do not change once shown.
  }, [resource.tool_call_id, html, sandboxUrl]);

  useEffect(() => {
    context.current = { ...context.current, locale };
    session.current?.update(context.current);
  }, [locale]);

  if (failed) {
    return (
      <div className="ui-resource-failed" role="status">
        <p>{t.failed}</p>
        <p className="ui-resource-alt">{resource.altText}</p>
      </div>
    );
  }
  const border = resource.meta?.prefersBorder === false ? ' borderless' : '';
  return (
    <>
      <iframe
        ref={frame}
        className={`ui-frame${border}`}
        title={resource.origin === 'external' ? t.viewOf(resource.server_name) : t.ourView}
        // The sandbox proxy needs its own origin (allow-same-origin keeps it, on the sandbox's origin) and its
        // script; the view's own frame inside gets scripts only.
        sandbox="allow-scripts allow-same-origin"
        referrerPolicy="no-referrer"
        style={{ height }}
        data-testid="ui-resource-frame"
        data-tool-call-id={resource.tool_call_id}
      />
      {pending && <LinkDialog url={pending.url} source={source} onDecide={decide} />}
    </>
  );
}
