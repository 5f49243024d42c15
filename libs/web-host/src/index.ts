export * from './web-app-files';
export {
  type RunningWebSandbox,
  SANDBOX_PROXY_PATH,
  SANDBOX_SCRIPT_PATH,
  type WebSandboxOptions,
  startWebSandbox,
  webSandboxHandler,
} from './web-sandbox/web-sandbox';
export { SandboxCspError, parseDeclaredCsp, sandboxCsp } from './web-sandbox/sandbox-csp';
