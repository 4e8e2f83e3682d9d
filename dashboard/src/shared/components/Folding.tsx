import { Box, Button } from '@mui/material';
import { type ReactNode, useState } from 'react';

/** On a phone a page's filters fold behind one button, so the table's first rows stay on the first screen; from the
 * `sm` breakpoint up they are always shown. `count`: how many filters are set, said on the folded button. */
export function Folding({ id, count, children }: { id: string; count: number; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        size="small"
        variant="outlined"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        sx={{ display: { sm: 'none' }, mb: 1.5 }}
      >
        {open ? 'Hide filters' : `Filters${count ? ` (${count} set)` : ''}`}
      </Button>
      <Box id={id} sx={{ display: { xs: open ? 'block' : 'none', sm: 'block' } }}>
        {children}
      </Box>
    </>
  );
}
