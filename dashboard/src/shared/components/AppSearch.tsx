// The app bar's search, loaded once the first page has what it needs: the search (an Autocomplete with its popper,
// about a tenth of the first page's JavaScript) never holds up the first page. Until it loads, a plain input of the
// same size stands in; focusing it (or typing) loads the search at once and hands it the text and the focus.
import { Box } from '@mui/material';
import { useIsFetching } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';

const SessionSearch = lazy(() => import('./SessionSearch').then((m) => ({ default: m.SessionSearch })));

/** Load the search anyway after this long, whatever the page is doing (a page that polls never settles). */
const LATEST_MS = 4000;

const BOX = { flex: '1 1 220px', maxWidth: { sm: 360 }, minWidth: 180 } as const;

/** When the browser is next idle: after the renders the last answer started (the page drawing its data). */
function whenIdle(then: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(then, { timeout: 1000 });
    return () => window.cancelIdleCallback(handle);
  }
  const timer = setTimeout(then, 200);
  return () => clearTimeout(timer);
}

/** True once the page's first reads have started, all ended, and the page has drawn them (or after LATEST_MS). */
function useFirstPageSettled(): boolean {
  const fetching = useIsFetching();
  const [seen, setSeen] = useState(false);
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    if (fetching > 0) {
      setSeen(true);
      return undefined;
    }
    return seen ? whenIdle(() => setSettled(true)) : undefined;
  }, [fetching, seen]);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(true), LATEST_MS);
    return () => clearTimeout(timer);
  }, []);
  return settled;
}

function Placeholder({
  text,
  onText,
  onFocus,
  onWanted,
  onBlur,
}: {
  text: string;
  onText?: (text: string) => void;
  onFocus?: () => void;
  onWanted?: () => void;
  onBlur?: () => void;
}) {
  return (
    <Box sx={BOX}>
      <Box
        component="input"
        value={text}
        onChange={(e: React.ChangeEvent<HTMLInputElement>) => onText?.(e.target.value)}
        onFocus={onFocus}
        onBlur={onBlur}
        onPointerEnter={onWanted}
        placeholder="Search sessions: id, agent, alert"
        aria-label="Search sessions by id, agent or alert type"
        sx={{
          width: '100%',
          height: 40,
          boxSizing: 'border-box',
          px: 1.75,
          border: 0,
          borderRadius: 1,
          bgcolor: 'background.paper',
          color: 'text.primary',
          font: 'inherit',
          fontSize: '1rem',
        }}
      />
    </Box>
  );
}

export function AppSearch() {
  const settled = useFirstPageSettled();
  const [wanted, setWanted] = useState(false);
  const [focused, setFocused] = useState(false);
  const [text, setText] = useState('');
  const focus = () => {
    setFocused(true);
    setWanted(true);
  };
  const blur = () => setFocused(false);
  if (!settled && !wanted) {
    return <Placeholder text={text} onText={setText} onFocus={focus} onBlur={blur} onWanted={() => setWanted(true)} />;
  }
  return (
    <Suspense fallback={<Placeholder text={text} onText={setText} onFocus={() => setFocused(true)} onBlur={blur} />}>
      <SessionSearch initialText={text} autoFocus={focused} />
    </Suspense>
  );
}
