export * from './gateway-logs/llm-gateway-log.entity';
export * from './gateway-logs/gateway-log-writer';
export * from './gateway-logs/log-row-id';
