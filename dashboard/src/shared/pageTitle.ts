// The browser tab's title for each page (WCAG 2.4.2: a page titled by what it shows), set in one place from the
// route so pages need not each remember it.
import { useEffect } from 'react';
import { matchPath, useLocation } from 'react-router-dom';
import { shortSessionId } from './components/SessionId';

export const APP_NAME = 'Session Scoring';

const TITLES: [pattern: string, title: (params: Record<string, string | undefined>) => string][] = [
  ['/', () => 'Sessions'],
  ['/sessions/:sessionId/compare', (p) => `Compare attempts of ${shortSessionId(p.sessionId ?? '')}`],
  ['/sessions/:sessionId', (p) => `Session ${shortSessionId(p.sessionId ?? '')}`],
  ['/scores', () => 'Scores'],
  ['/analytics', () => 'Analytics'],
  ['/analytics/trends', () => 'Trends'],
  ['/analytics/compare', () => 'Compare criteria'],
  ['/analytics/missing-tools', () => 'Missing tools'],
  ['/analytics/missing-tools/:tool', (p) => `Sessions missing ${p.tool ?? 'a tool'}`],
  ['/agreement', () => 'Judge vs humans'],
  ['/agreement/label', () => 'Label sessions'],
  ['/runs', () => 'Scoring runs'],
  ['/runs/new', () => 'New scoring run'],
  ['/runs/:runId', () => 'Scoring run'],
  ['/upload', () => 'Upload a trace'],
  ['/export', () => 'Export training data'],
];

const decoded = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** "Scores · Session Scoring" for /scores; "Page not found · Session Scoring" for a path no page serves. */
export function titleFor(pathname: string): string {
  for (const [pattern, title] of TITLES) {
    const match = matchPath(pattern, pathname);
    if (match) return `${title(Object.fromEntries(Object.entries(match.params).map(([k, v]) => [k, v && decoded(v)])))} · ${APP_NAME}`;
  }
  return `Page not found · ${APP_NAME}`;
}

/** Keeps `document.title` in step with the route. */
export function usePageTitle() {
  const { pathname } = useLocation();
  useEffect(() => {
    document.title = titleFor(pathname);
  }, [pathname]);
}
