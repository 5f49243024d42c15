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

export const appNames: readonly AppName[] = [...serviceNames, 'platform', 'platformctl'];

export function isAppName(value: string): value is AppName {
  return (appNames as readonly string[]).includes(value);
}
