// The app bar's search, on every page: a session by a piece of its id, its agent or its alert type.
import { Autocomplete, Box, Paper, TextField, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../../api/client';
import type { SessionSearchHit } from '../../api/generated/schema';
import { shortSessionId } from './SessionId';

const MIN_TEXT = 2;
const WAIT_MS = 250;

/** The text once typing paused, so a request goes out per pause, not per key. */
function useSettled(text: string): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), WAIT_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return settled;
}

export const searchKey = (text: string) => ['search', text] as const;

/** A whole session id (a UUID, or a source-prefixed id such as `upload:...`): Enter may open it though nothing
 * matched (a session the search cannot reach); a fragment that matched nothing stays in the box with "no matches". */
const WHOLE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z]+:.+)$/i;

const describe = (hit: SessionSearchHit) =>
  [shortSessionId(hit.session_id), hit.agent, hit.alert_type !== hit.title ? hit.alert_type : null].filter(Boolean).join(' · ');

/** Type and pick a session (or press Enter: the best match opens, or the session with exactly that id).
 * `initialText` and `autoFocus` take over what was typed into the stand-in while the search loaded. */
export function SessionSearch({ initialText = '', autoFocus = false }: { initialText?: string; autoFocus?: boolean }) {
  const navigate = useNavigate();
  const [text, setText] = useState(initialText);
  const settled = useSettled(text.trim());
  const ready = settled.length >= MIN_TEXT;
  const search = useQuery({
    queryKey: searchKey(settled),
    queryFn: () => api.searchSessions(settled),
    enabled: ready,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  // Only the answer to the text as it is now: Enter must never open a match of what was typed before.
  const hits = ready && search.data?.query === text.trim() ? search.data.items : [];

  const [unmatched, setUnmatched] = useState<string | null>(null);
  const open = (sessionId: string) => {
    setText('');
    setUnmatched(null);
    navigate(`/sessions/${encodeURIComponent(sessionId)}`);
  };
  /** Enter on typed text: the best match when there is one, else a whole id as itself (its page says if unknown);
   * a fragment nothing matches stays here with "no matches" (never a page that sends the reader back to search). */
  const submit = async (typed: string) => {
    const wanted = typed.trim();
    if (wanted.length < MIN_TEXT) return;
    const found = await api.searchSessions(wanted).catch(() => null);
    const best = found?.items[0]?.session_id;
    if (best) open(best);
    else if (WHOLE_ID.test(wanted)) open(wanted);
    else setUnmatched(wanted);
  };
  const answered = ready && !search.isFetching && search.data?.query === text.trim();
  const noMatches = (answered && hits.length === 0) || (unmatched !== null && unmatched === text.trim());

  return (
    <Box sx={{ position: 'relative', flex: '1 1 220px', maxWidth: { sm: 360 }, minWidth: 180 }}>
    <Autocomplete<SessionSearchHit, false, false, true>
      freeSolo
      autoHighlight
      size="small"
      options={hits}
      filterOptions={(options) => options}
      getOptionLabel={(hit) => (typeof hit === 'string' ? hit : hit.session_id)}
      getOptionKey={(hit) => (typeof hit === 'string' ? hit : hit.session_id)}
      inputValue={text}
      onInputChange={(_, value, reason) => {
        if (reason !== 'reset') setText(value);
      }}
      value={null}
      onChange={(_, chosen) => {
        if (typeof chosen === 'string') void submit(chosen);
        else if (chosen) open(chosen.session_id);
      }}
      loading={search.isFetching}
      noOptionsText={ready ? (search.isFetching ? 'Searching…' : 'No matches') : 'Type at least 2 characters'}
      renderOption={({ key, ...props }, hit) => (
        <Box component="li" key={key} {...props} data-testid="search-hit" data-session-id={hit.session_id}>
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" noWrap>
              {hit.title ?? shortSessionId(hit.session_id)}
            </Typography>
            <Typography variant="caption" color="text.secondary" component="div" noWrap>
              {describe(hit)}
            </Typography>
          </Box>
        </Box>
      )}
      renderInput={(params) => (
        <TextField
          {...params}
          placeholder="Search sessions: id, agent, alert"
          autoFocus={autoFocus}
          slotProps={{ htmlInput: { ...params.inputProps, 'aria-label': 'Search sessions by id, agent or alert type', 'data-testid': 'session-search' } }}
          sx={{ bgcolor: 'background.paper', borderRadius: 1 }}
        />
      )}
    />
      {/* a free-solo Autocomplete shows no "no options" line of its own */}
      {noMatches && (
        <Paper
          role="status"
          data-testid="search-no-matches"
          elevation={3}
          sx={{ position: 'absolute', top: '100%', left: 0, right: 0, mt: 0.5, px: 1.5, py: 1, zIndex: 'modal' }}
        >
          <Typography variant="body2" color="text.primary">
            No matches for “{text.trim()}”
          </Typography>
        </Paper>
      )}
    </Box>
  );
}
