export const serviceNames = [
  'auth-service',
  'chat-service',
  'agent-runtime',
  'admin-service',
  'agent-protocols',
  'llm-gateway',
] as const;

export type ServiceName = (typeof serviceNames)[number];
export type AppName = ServiceName | 'platform' | 'platformctl';
/** Every deployable, and all of them in one process. */
export type HostedApp = ServiceName | 'platform';

export const appNames: readonly AppName[] = [...serviceNames, 'platform', 'platformctl'];

export function isAppName(value: string): value is AppName {
  return (appNames as readonly string[]).includes(value);
}
