import { Box, IconButton, SvgIcon, Tooltip } from '@mui/material';
import { useState } from 'react';

/** A session id as people read it: the part after a source prefix (`upload:`), cut to its first 8 characters when
 * it is long (a UUID's first group). The whole id stays in the title and in what the copy button copies. */
export function shortSessionId(sessionId: string): string {
  const bare = sessionId.slice(sessionId.lastIndexOf(':') + 1);
  return bare.length > 12 ? bare.slice(0, 8) : bare;
}

function CopyIcon() {
  return (
    <SvgIcon fontSize="inherit" aria-hidden>
      <path d="M16 1H4c-1.1 0-2 .9-2 2v14h2V3h12V1zm3 4H8c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h11c1.1 0 2-.9 2-2V7c0-1.1-.9-2-2-2zm0 16H8V7h11v14z" />
    </SvgIcon>
  );
}

/** The short id in monospace with a button that copies the whole id (a click on it never opens the row it sits in). */
export function SessionIdChip({ sessionId }: { sessionId: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = (event: React.MouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    const done = navigator.clipboard?.writeText(sessionId);
    if (!done) {
      setCopied('failed');
      return;
    }
    done.then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  const tip = copied === 'yes' ? 'Copied' : copied === 'failed' ? `Could not copy: ${sessionId}` : `Copy ${sessionId}`;
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.25, whiteSpace: 'nowrap' }}>
      <Box component="code" title={sessionId} data-testid="session-short-id" sx={{ fontSize: '0.8125rem' }}>
        {shortSessionId(sessionId)}
      </Box>
      <Tooltip title={tip} onClose={() => setCopied(null)}>
        <IconButton size="small" aria-label={`Copy session id ${sessionId}`} onClick={copy} sx={{ p: 0.5, fontSize: '0.9rem' }}>
          <CopyIcon />
        </IconButton>
      </Tooltip>
    </Box>
  );
}
