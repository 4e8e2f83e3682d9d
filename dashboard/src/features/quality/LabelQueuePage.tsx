// The labelling queue: the caller's next unlabelled session (scored under the current criteria) with the judge's
// score beside its transcript, labelled from the keyboard: type the total, Enter saves and opens the next, s skips.
// An optional breakdown takes the dimensions of the rubric in force, each out of its own maximum.
import { Alert, Box, Breadcrumbs, Button, Card, CardContent, FormControlLabel, Link, Stack, Switch, TextField, Typography } from '@mui/material';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { LabelQueueSession } from '../../api/generated/schema';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { SessionIdChip, shortSessionId } from '../../shared/components/SessionId';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { Markdown } from '../../shared/components/Markdown';
import { ConversationView } from '../sessions/ConversationView';
import { useSession, useSessionScoring } from '../sessions/queries';
import { ScoreBreakdown } from '../sessions/ScoreBreakdownCard';
import { useCurrentJudge } from '../runs/queries';
import { useLabelQueue, usePrefetchAfter, usePutLabel } from './queries';
import { LabelFormDimensions, useBreakdownDraft } from './LabelFormDimensions';

/** The keys the queue answers, as the page lists them. */
export const SHORTCUTS: [keys: string, what: string][] = [
  ['0-9', 'type your total (0-100), wherever the focus is'],
  ['Enter', 'save the label and open the next session'],
  ['s', 'skip this session (it stays in the queue)'],
  ['Tab', 'move to the notes (Enter there saves too)'],
];

const isTotal = (text: string) => /^\d{1,3}$/.test(text) && Number(text) <= 100;

/** Whether a key press belongs to a control that has a use for it (a link, a button, another field). */
function ownedByControl(target: EventTarget | null, ours: (HTMLElement | null)[]): boolean {
  if (!(target instanceof HTMLElement) || ours.includes(target)) return false;
  return Boolean(target.closest('a, button, input, textarea, select, [role="button"], [contenteditable="true"]'));
}

function QueueItem({
  item,
  blind,
  onSaved,
  onSkip,
}: {
  item: LabelQueueSession;
  /** The judge's score stays hidden until the label is saved (then the status line says it). */
  blind: boolean;
  onSaved: (sessionId: string, total: number) => void;
  onSkip: (sessionId: string) => void;
}) {
  const session = useSession(item.session_id);
  const scoring = useSessionScoring(item.session_id);
  const put = usePutLabel(item.session_id);
  const criteria = useCurrentJudge();
  const rubric = criteria.data?.rubric ?? null;
  const [total, setTotal] = useState('');
  const [notes, setNotes] = useState('');
  const [tried, setTried] = useState(false);
  const scoreRef = useRef<HTMLInputElement>(null);
  const notesRef = useRef<HTMLInputElement>(null);
  const valid = isTotal(total);
  const dimensions = useBreakdownDraft(rubric, valid ? Number(total) : null);

  const save = () => {
    setTried(true);
    if (!valid || dimensions.problem || put.isPending) return;
    const value = Number(total);
    const breakdown = dimensions.breakdown;
    put.mutate(
      { total_score: value, ...(breakdown ? { score_breakdown: breakdown } : {}), notes: notes.trim() || null },
      { onSuccess: () => onSaved(item.session_id, value) },
    );
  };
  const saveRef = useRef(save);
  saveRef.current = save;

  useEffect(() => {
    scoreRef.current?.focus();
  }, []);

  // The page's shortcuts, wherever the focus is, except where a control needs the key itself.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      const inScore = event.target === scoreRef.current;
      const inNotes = event.target === notesRef.current;
      if (ownedByControl(event.target, [scoreRef.current, notesRef.current])) return;
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        saveRef.current();
      } else if ((event.key === 's' || event.key === 'S') && !inNotes) {
        event.preventDefault();
        onSkip(item.session_id);
      } else if (/^\d$/.test(event.key) && !inScore && !inNotes) {
        event.preventDefault();
        setTotal((t) => (t + event.key).slice(-3));
        scoreRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [item.session_id, onSkip]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save();
  };
  const current = scoring.data?.current ?? null;
  const title = session.data?.title ?? session.data?.alert_type ?? 'Session';

  return (
    <Box data-testid="queue-session" data-session-id={item.session_id}>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center', mb: 2 }}>
        <Typography variant="h6" component="h2" sx={{ overflowWrap: 'anywhere', minWidth: 0 }}>
          {title}
        </Typography>
        <SessionIdChip sessionId={item.session_id} />
        <Link component={RouterLink} to={`/sessions/${encodeURIComponent(item.session_id)}`} variant="body2">
          Open its page
        </Link>
      </Box>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'minmax(300px, 2fr) 3fr' }, alignItems: 'start' }}>
        <Stack spacing={2} sx={{ position: { md: 'sticky' }, top: { md: 16 } }}>
          <Card variant="outlined" component="section" aria-labelledby="your-label">
            <CardContent>
              <Typography variant="h6" component="h3" id="your-label" gutterBottom>
                Your label
              </Typography>
              <Box component="form" onSubmit={submit} sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
                <TextField
                  label="Your total (0-100)"
                  size="small"
                  value={total}
                  onChange={(e) => setTotal(e.target.value.replace(/\D/g, '').slice(0, 3))}
                  error={(tried || total !== '') && !valid}
                  helperText={(tried || total !== '') && !valid ? 'A whole number from 0 to 100' : ' '}
                  slotProps={{ htmlInput: { inputMode: 'numeric', ref: scoreRef, 'data-testid': 'queue-total' } }}
                />
                <TextField
                  label="Notes (optional)"
                  size="small"
                  value={notes}
                  onChange={(e) => setNotes(e.target.value)}
                  slotProps={{ htmlInput: { ref: notesRef, maxLength: 2000 } }}
                />
                <LabelFormDimensions rubric={rubric} draft={dimensions.draft} problem={dimensions.problem} onChange={dimensions.setPoints} idPrefix="queue" />
                <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
                  <Button type="submit" variant="contained" disabled={put.isPending}>
                    {put.isPending ? 'Saving…' : 'Save and next (Enter)'}
                  </Button>
                  <Button onClick={() => onSkip(item.session_id)}>Skip (s)</Button>
                </Box>
                {put.error && <Alert severity="error">Could not save the label: {errorMessage(put.error)}</Alert>}
              </Box>
            </CardContent>
          </Card>
          <Card variant="outlined" component="section" aria-labelledby="judge-score">
            <CardContent>
              <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', mb: 1 }}>
                <Typography variant="h6" component="h3" id="judge-score">
                  The judge's score
                </Typography>
                {!blind && <ScoreBadge score={{ status: 'completed', total_score: item.total_score }} size="medium" />}
              </Box>
              {blind && (
                <Typography variant="body2" color="text.secondary" data-testid="judge-hidden">
                  Hidden until your label is saved (blind labelling), so it cannot anchor your score.
                </Typography>
              )}
              {!blind && current && <ScoreBreakdown score={current} />}
              {!blind && current?.score_reasoning && (
                <Box sx={{ mt: 1 }}>
                  <Typography variant="subtitle2" component="h4">
                    Reasoning
                  </Typography>
                  <Markdown text={current.score_reasoning} />
                </Box>
              )}
              {scoring.error && <ErrorState message={`Could not load the score: ${errorMessage(scoring.error)}`} />}
            </CardContent>
          </Card>
        </Stack>
        <Box component="section" aria-label="Transcript" sx={{ minWidth: 0 }}>
          {session.isPending && <Loading what="the transcript" />}
          {session.error && <ErrorState message={`Could not load the transcript: ${errorMessage(session.error)}`} onRetry={() => void session.refetch()} />}
          {session.data && <ConversationView session={session.data} />}
        </Box>
      </Box>
    </Box>
  );
}

/** The caller's labelling queue, one session at a time; `after` in the URL keeps the place across a reload. */
export function LabelQueuePage() {
  const [params, setParams] = useSearchParams();
  // The place in the queue is the page's own state, so the next session shows in the same render that says the
  // last one was saved (a router navigation may land a moment later, and keys typed meanwhile would go to the old
  // session); the URL follows it.
  const [after, setAfter] = useState<string | null>(() => params.get('after'));
  const inUrl = params.get('after');
  const blind = params.get('blind') === '1';
  useEffect(() => {
    if (inUrl !== after) setParams({ ...(after ? { after } : {}), ...(blind ? { blind: '1' } : {}) }, { replace: true });
  }, [after, inUrl, blind, setParams]);
  const setBlind = (on: boolean) => setParams({ ...(after ? { after } : {}), ...(on ? { blind: '1' } : {}) }, { replace: true });
  const queue = useLabelQueue(after);
  const data = queue.data;
  const [done, setDone] = useState<{ saved: number; skipped: number; last: string | null }>({ saved: 0, skipped: 0, last: null });
  const moveOn = (sessionId: string) => setAfter(sessionId);
  const onSaved = (sessionId: string, total: number) => {
    // in blind mode the judge's score is revealed once the label is in
    const judge = blind && data?.next?.session_id === sessionId ? ` The judge gave ${data.next.total_score}.` : '';
    setDone((d) => ({ ...d, saved: d.saved + 1, last: `Saved ${total} for ${shortSessionId(sessionId)}.${judge}` }));
    moveOn(sessionId);
  };
  const onSkip = (sessionId: string) => {
    setDone((d) => ({ ...d, skipped: d.skipped + 1, last: `Skipped ${shortSessionId(sessionId)}.` }));
    moveOn(sessionId);
  };
  usePrefetchAfter(data?.next?.session_id ?? null);

  return (
    <>
      <Breadcrumbs sx={{ mb: 1 }}>
        <Link component={RouterLink} to="/agreement">
          Agreement
        </Link>
        <Typography color="text.primary">Label sessions</Typography>
      </Breadcrumbs>
      <Typography variant="h5" component="h1" gutterBottom>
        Label sessions
      </Typography>
      <Typography variant="body2" color="text.secondary" data-testid="queue-remaining">
        {data
          ? `Labelling as ${data.labeller}: ${data.remaining} session${data.remaining === 1 ? '' : 's'} scored under the current criteria without your label.`
          : ' '}
      </Typography>
      <Box
        component="ul"
        aria-label="Keyboard shortcuts"
        sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 2, rowGap: 0.5, my: 1, p: 0, listStyle: 'none', fontSize: '0.8125rem' }}
      >
        {SHORTCUTS.map(([keys, what]) => (
          <Box component="li" key={keys}>
            <kbd>{keys}</kbd>{' '}
            <Box component="span" sx={{ color: 'text.secondary' }}>
              {what}
            </Box>
          </Box>
        ))}
      </Box>
      <FormControlLabel
        control={<Switch checked={blind} onChange={(e) => setBlind(e.target.checked)} />}
        label="Blind: hide the judge's score until my label is saved"
      />
      <Typography variant="body2" role="status" data-testid="queue-status" sx={{ minHeight: '1.5em', mb: 1 }}>
        {done.last ? `${done.last} ${done.saved} saved, ${done.skipped} skipped here.` : ''}
      </Typography>
      {queue.error && <ErrorState message={`Could not read your queue: ${errorMessage(queue.error)}`} onRetry={() => void queue.refetch()} />}
      {queue.isPending && <Loading what="the next session" />}
      {data?.next && <QueueItem key={data.next.session_id} item={data.next} blind={blind} onSaved={onSaved} onSkip={onSkip} />}
      {data && !data.next &&
        (data.remaining > 0 ? (
          <EmptyState title="No more sessions after the ones you skipped">
            {data.remaining} still wait{data.remaining === 1 ? 's' : ''} for your label.{' '}
            <Button onClick={() => setAfter(null)}>Start again from the first</Button>
          </EmptyState>
        ) : (
          <EmptyState title="Nothing left to label">
            Every session scored under the current criteria has your label. See how the judge agrees on the{' '}
            <Link component={RouterLink} to="/agreement">
              Agreement
            </Link>{' '}
            page.
          </EmptyState>
        ))}
    </>
  );
}
