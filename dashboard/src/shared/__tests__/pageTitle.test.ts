import { describe, expect, it } from 'vitest';
import { titleFor } from '../pageTitle';
import { formatDateTime } from '../time';

describe('titleFor', () => {
  it('titles every page by what it shows', () => {
    expect(titleFor('/')).toBe('Sessions · Session Scoring');
    expect(titleFor('/scores')).toBe('Scores · Session Scoring');
    expect(titleFor('/sessions/upload%3A8399fa2e-f77e-4751-a9d9-e15e921b9546')).toBe('Session 8399fa2e · Session Scoring');
    expect(titleFor('/sessions/s-1/compare')).toBe('Compare attempts of s-1 · Session Scoring');
    expect(titleFor('/analytics/missing-tools/get_pod_logs')).toBe('Sessions missing get_pod_logs · Session Scoring');
    expect(titleFor('/agreement/label')).toBe('Label sessions · Session Scoring');
    expect(titleFor('/runs/new')).toBe('New scoring run · Session Scoring');
    expect(titleFor('/runs/11111111-2222-4333-8444-555555555555')).toBe('Scoring run · Session Scoring');
    expect(titleFor('/upload')).toBe('Upload a trace · Session Scoring');
    expect(titleFor('/no/such/page')).toBe('Page not found · Session Scoring');
  });
});

describe('formatDateTime', () => {
  it('names the time zone of every time it shows', () => {
    const shown = formatDateTime('2026-11-20T09:00:30Z');
    const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(new Date('2026-11-20T09:00:30Z')).find((p) => p.type === 'timeZoneName')?.value;
    expect(zone).toBeTruthy();
    expect(shown).toContain(zone!);
    expect(shown).toContain('2026');
    expect(formatDateTime('2026-11-20T09:00:30Z', { withSeconds: true })).toMatch(/30/);
    expect(formatDateTime(null)).toBe('–');
  });
});
