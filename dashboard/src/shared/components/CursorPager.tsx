import { Button, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** Previous/Next through an API's cursors: `cursors` is the stack of cursors that led to this page (empty on the
 * first), `nextCursor` the page's own (null on the last). `children` go before the page number (e.g. a note). */
export function CursorPager({
  cursors,
  nextCursor,
  loading,
  onCursors,
  children,
}: {
  cursors: string[];
  nextCursor: string | null | undefined;
  loading: boolean;
  onCursors: (next: string[]) => void;
  children?: ReactNode;
}) {
  return (
    <Stack direction="row" spacing={1} alignItems="center" justifyContent="flex-end" sx={{ p: 1 }} useFlexGap flexWrap="wrap">
      {children}
      <Typography variant="body2" color="text.secondary">
        Page {cursors.length + 1}
      </Typography>
      <Button disabled={cursors.length === 0} onClick={() => onCursors(cursors.slice(0, -1))}>
        Previous
      </Button>
      <Button disabled={!nextCursor || loading} onClick={() => nextCursor && onCursors([...cursors, nextCursor])}>
        Next
      </Button>
    </Stack>
  );
}
