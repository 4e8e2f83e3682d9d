import { AppBar, Box, Button, Container, Toolbar, Typography } from '@mui/material';
import { lazy, type ReactNode, Suspense } from 'react';
import { NavLink, Route, Routes } from 'react-router-dom';
import { AgreementPage } from './features/quality/AgreementPage';
import { RunDetailPage } from './features/runs/RunDetailPage';
import { RunFormPage } from './features/runs/RunFormPage';
import { RunsPage } from './features/runs/RunsPage';
import { ScoresPage } from './features/scores/ScoresPage';
import { SessionDetailPage } from './features/sessions/SessionDetailPage';
import { SessionsPage } from './features/sessions/SessionsPage';
import { EmptyState, Loading } from './shared/components/StateViews';

// The analytics page carries MUI X Charts (about a third of the bundle): loaded when first opened, not on every page.
const AnalyticsPage = lazy(() => import('./features/analytics/AnalyticsPage').then((m) => ({ default: m.AnalyticsPage })));
const TrendsPage = lazy(() => import('./features/analytics/TrendsPage').then((m) => ({ default: m.TrendsPage })));
const ComparisonPage = lazy(() => import('./features/analytics/ComparisonPage').then((m) => ({ default: m.ComparisonPage })));
const MissingToolsPage = lazy(() => import('./features/analytics/MissingToolsPage').then((m) => ({ default: m.MissingToolsPage })));
const ToolSessionsPage = lazy(() => import('./features/analytics/ToolSessionsPage').then((m) => ({ default: m.ToolSessionsPage })));

/** An Analytics view, loaded when first opened. */
const analytics = (page: ReactNode) => <Suspense fallback={<Loading what="analytics" />}>{page}</Suspense>;

const navStyle = { color: 'inherit', '&.active': { bgcolor: 'rgba(255,255,255,0.16)' } };

export function App() {
  return (
    <>
      <AppBar position="static" elevation={0}>
        <Toolbar variant="dense" sx={{ gap: 1, flexWrap: 'wrap' }}>
          <Typography variant="h6" component="div" sx={{ mr: 2, whiteSpace: 'nowrap', display: { xs: 'none', sm: 'block' } }}>
            Session Scoring
          </Typography>
          <Button component={NavLink} to="/" end sx={navStyle}>
            Sessions
          </Button>
          <Button component={NavLink} to="/scores" sx={navStyle}>
            Scores
          </Button>
          <Button component={NavLink} to="/analytics" sx={navStyle}>
            Analytics
          </Button>
          <Button component={NavLink} to="/runs" sx={navStyle}>
            Runs
          </Button>
          <Button component={NavLink} to="/agreement" sx={navStyle}>
            Agreement
          </Button>
        </Toolbar>
      </AppBar>
      <Container maxWidth="xl" sx={{ py: 2 }}>
        <Box component="main">
          <Routes>
            <Route path="/" element={<SessionsPage />} />
            <Route path="/sessions/:sessionId" element={<SessionDetailPage />} />
            <Route
              path="/analytics"
              element={
                <Suspense fallback={<Loading what="analytics" />}>
                  <AnalyticsPage />
                </Suspense>
              }
            />
            <Route path="/analytics/trends" element={analytics(<TrendsPage />)} />
            <Route path="/analytics/compare" element={analytics(<ComparisonPage />)} />
            <Route path="/analytics/missing-tools" element={analytics(<MissingToolsPage />)} />
            <Route path="/analytics/missing-tools/:tool" element={analytics(<ToolSessionsPage />)} />
            <Route path="/scores" element={<ScoresPage />} />
            <Route path="/agreement" element={<AgreementPage />} />
            <Route path="/runs" element={<RunsPage />} />
            <Route path="/runs/new" element={<RunFormPage />} />
            <Route path="/runs/:runId" element={<RunDetailPage />} />
            <Route path="*" element={<EmptyState title="Page not found">Use Sessions or Analytics above.</EmptyState>} />
          </Routes>
        </Box>
      </Container>
    </>
  );
}
