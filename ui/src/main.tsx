import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SessionProvider } from './api/session';
import { App } from './app';
import { ThemeProvider } from './components/theme';
import { Router } from './router';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ThemeProvider>
      <SessionProvider>
        <Router>
          <App />
        </Router>
      </SessionProvider>
    </ThemeProvider>
  </StrictMode>,
);
