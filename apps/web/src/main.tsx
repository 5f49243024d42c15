import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import './app/app.css';
import { AuthProvider } from './lib/auth/auth-context';
import { createUserManager } from './lib/auth/user-manager';
import { LocaleProvider } from './lib/i18n/locale';
import { ThemeProvider } from './lib/theme';
import { readWebConfig } from './lib/web-config';

const manager = createUserManager(readWebConfig());
const queries = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <LocaleProvider>
      <ThemeProvider>
        <QueryClientProvider client={queries}>
          <AuthProvider manager={manager}>
            <App />
          </AuthProvider>
        </QueryClientProvider>
      </ThemeProvider>
    </LocaleProvider>
  </StrictMode>,
);
