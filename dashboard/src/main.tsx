import { CssBaseline, ThemeProvider, createTheme } from '@mui/material';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';
import { createQueryClient } from './api/queryClient';

const theme = createTheme({ palette: { primary: { main: '#1f4e79' } } });
const queryClient = createQueryClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        {/* Navigations render at once, not in a React transition: the dashboard keeps its state in the URL, and a
            transition leaves the previous page on screen (with handlers built from the previous URL) while it renders,
            so a second click in that time (worst first just after a time range, on a slow phone) undid the first. */}
        <BrowserRouter useTransitions={false}>
          <App />
        </BrowserRouter>
      </ThemeProvider>
    </QueryClientProvider>
  </StrictMode>,
);
