// A numbered pager (rows per page, "21–40 of 210", Previous / Next) with a native select: on the first page it stands
// in for MUI's TablePagination, whose Select (with its Menu, Popover and Modal) would add about 16 KB of gzipped
// JavaScript before the sessions list can show.
import { Box, Button, NativeSelect, Typography } from '@mui/material';
import { useId } from 'react';

export function NumberedPager({
  count,
  page,
  pageSize,
  pageSizes,
  onPage,
  onPageSize,
}: {
  /** Every row the list has (null: not known). */
  count: number | null;
  /** From 1. */
  page: number;
  pageSize: number;
  pageSizes: number[];
  onPage: (page: number) => void;
  onPageSize: (pageSize: number) => void;
}) {
  const id = useId();
  const first = count === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = count === null ? page * pageSize : Math.min(count, page * pageSize);
  const hasNext = count === null || page * pageSize < count;
  return (
    <Box
      sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', justifyContent: 'flex-end', gap: { xs: 1, sm: 2 }, p: 1 }}
      data-testid="pager"
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Typography variant="body2" component="label" htmlFor={id}>
          Rows per page
        </Typography>
        <NativeSelect id={id} value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))} sx={{ fontSize: '0.875rem' }}>
          {pageSizes.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </NativeSelect>
      </Box>
      <Typography variant="body2" data-testid="pager-range">
        {first}–{last}
        {count === null ? '' : ` of ${count}`}
      </Typography>
      <Box>
        <Button size="small" disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label="Go to previous page">
          Previous
        </Button>
        <Button size="small" disabled={!hasNext} onClick={() => onPage(page + 1)} aria-label="Go to next page">
          Next
        </Button>
      </Box>
    </Box>
  );
}
