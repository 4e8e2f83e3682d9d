import { AppBar, Box, Button, Container, Toolbar, Typography } from '@mui/material';
import { lazy, type ReactNode, Suspense, useEffect } from 'react';
import { NavLink, Route, Routes, useLocation } from 'react-router-dom';
import { features } from './features';
import { SessionsPage } from './features/sessions/SessionsPage';
import { AppSearch } from './shared/components/AppSearch';
import { EmptyState, Loading } from './shared/components/StateViews';
import { usePageTitle } from './shared/pageTitle';

// Every page but the sessions list (the first one most people open) is a chunk of its own, loaded when first opened:
// the charts (MUI X Charts, about a third of the JavaScript) only ever load with an analytics view.
// The search (an Autocomplete with its popper) loads once the first page has its data (shared/components/AppSearch).
const SessionDetailPage = lazy(features.sessionDetail);
const ScoresPage = lazy(features.scores);
const AgreementPage = lazy(features.agreement);
const LabelQueuePage = lazy(features.labelQueue);
const CompareAttemptsPage = lazy(features.compareAttempts);
const UploadPage = lazy(features.upload);
const ExportPage = lazy(features.trainingExport);
const RunsPage = lazy(features.runs);
const RunFormPage = lazy(features.runForm);
const RunDetailPage = lazy(features.runDetail);
const AnalyticsPage = lazy(features.analytics);
const TrendsPage = lazy(features.trends);
const ComparisonPage = lazy(features.comparison);
const MissingToolsPage = lazy(features.missingTools);
const ToolSessionsPage = lazy(features.toolSessions);
const FailureTagSessionsPage = lazy(features.failureTagSessions);

/** A page loaded when first opened. */
const later = (page: ReactNode) => <Suspense fallback={<Loading what="the page" />}>{page}</Suspense>;

const navStyle = { color: 'inherit', '&.active': { bgcolor: 'rgba(255,255,255,0.16)' } };

/** A new page opens at its top (the browser keeps the previous page's scroll otherwise: Compare attempts opened
 * 800 px down on a phone); a change of query string on the same page keeps its place. */
function useTopOnNewPage() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo?.(0, 0);
  }, [pathname]);
}

export function App() {
  usePageTitle();
  useTopOnNewPage();
  return (
    <>
      <AppBar position="static" elevation={0}>
        <Toolbar variant="dense" sx={{ gap: 1, flexWrap: 'wrap', py: { xs: 0.5, md: 0 } }}>
          <Typography variant="h6" component="div" sx={{ mr: 2, whiteSpace: 'nowrap', display: { xs: 'none', sm: 'block' } }}>
            Session Scoring
          </Typography>
          <Box component="nav" aria-label="Pages" sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
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
            <Button component={NavLink} to="/upload" sx={navStyle}>
              Upload
            </Button>
          </Box>
          <Box sx={{ flexGrow: 1, display: { xs: 'none', md: 'block' } }} />
          <AppSearch />
        </Toolbar>
      </AppBar>
      <Container maxWidth="xl" sx={{ py: 2 }}>
        <Box component="main">
          <Routes>
            <Route path="/" element={<SessionsPage />} />
            <Route path="/sessions/:sessionId" element={later(<SessionDetailPage />)} />
            <Route path="/sessions/:sessionId/compare" element={later(<CompareAttemptsPage />)} />
            <Route path="/analytics" element={later(<AnalyticsPage />)} />
            <Route path="/analytics/trends" element={later(<TrendsPage />)} />
            <Route path="/analytics/compare" element={later(<ComparisonPage />)} />
            <Route path="/analytics/missing-tools" element={later(<MissingToolsPage />)} />
            <Route path="/analytics/missing-tools/:tool" element={later(<ToolSessionsPage />)} />
            <Route path="/analytics/failure-tags/:tag" element={later(<FailureTagSessionsPage />)} />
            <Route path="/scores" element={later(<ScoresPage />)} />
            <Route path="/agreement" element={later(<AgreementPage />)} />
            <Route path="/agreement/label" element={later(<LabelQueuePage />)} />
            <Route path="/upload" element={later(<UploadPage />)} />
            <Route path="/export" element={later(<ExportPage />)} />
            <Route path="/runs" element={later(<RunsPage />)} />
            <Route path="/runs/new" element={later(<RunFormPage />)} />
            <Route path="/runs/:runId" element={later(<RunDetailPage />)} />
            <Route path="*" element={<EmptyState title="Page not found">Use Sessions or Analytics above.</EmptyState>} />
          </Routes>
        </Box>
      </Container>
    </>
  );
}
