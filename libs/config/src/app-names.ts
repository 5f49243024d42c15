export const serviceNames = [
  'auth-service',
  'chat-service',
  'agent-runtime',
  'admin-service',
  'agent-protocols',
  'llm-gateway',
] as const;

export type ServiceName = (typeof serviceNames)[number];
/**
 * `web-service` is the web app's deployable in the distributed stack: static files and the UI resource sandbox,
 * no database and no Redis, so it is not one of the services the service host runs.
 */
export type AppName = ServiceName | 'platform' | 'platformctl' | 'web-service';
/** Every deployable, and all of them in one process. */
export type HostedApp = ServiceName | 'platform';

export const appNames: readonly AppName[] = [...serviceNames, 'platform', 'platformctl', 'web-service'];

export function isAppName(value: string): value is AppName {
  return (appNames as readonly string[]).includes(value);
}
