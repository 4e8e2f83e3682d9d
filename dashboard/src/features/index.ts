// Each page's module, loaded when the page is first opened (React.lazy wants a default export).
const page =
  <M, K extends keyof M>(load: () => Promise<M>, name: K) =>
  () =>
    load().then((module) => ({ default: module[name] as React.ComponentType }));

export const features = {
  sessionDetail: page(() => import('./sessions/SessionDetailPage'), 'SessionDetailPage'),
  scores: page(() => import('./scores/ScoresPage'), 'ScoresPage'),
  agreement: page(() => import('./quality/AgreementPage'), 'AgreementPage'),
  labelQueue: page(() => import('./quality/LabelQueuePage'), 'LabelQueuePage'),
  compareAttempts: page(() => import('./sessions/CompareAttemptsPage'), 'CompareAttemptsPage'),
  upload: page(() => import('./upload/UploadPage'), 'UploadPage'),
  trainingExport: page(() => import('./export/ExportPage'), 'ExportPage'),
  runs: page(() => import('./runs/RunsPage'), 'RunsPage'),
  runForm: page(() => import('./runs/RunFormPage'), 'RunFormPage'),
  runDetail: page(() => import('./runs/RunDetailPage'), 'RunDetailPage'),
  analytics: page(() => import('./analytics/AnalyticsPage'), 'AnalyticsPage'),
  trends: page(() => import('./analytics/TrendsPage'), 'TrendsPage'),
  comparison: page(() => import('./analytics/ComparisonPage'), 'ComparisonPage'),
  missingTools: page(() => import('./analytics/MissingToolsPage'), 'MissingToolsPage'),
  toolSessions: page(() => import('./analytics/ToolSessionsPage'), 'ToolSessionsPage'),
  failureTagSessions: page(() => import('./analytics/FailureTagSessionsPage'), 'FailureTagSessionsPage'),
};
