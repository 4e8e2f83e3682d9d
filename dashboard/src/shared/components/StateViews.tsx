import { Alert, Box, Button, CircularProgress, LinearProgress, Typography } from '@mui/material';
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, p: 3 }} role="status">
      <CircularProgress size={24} aria-label={`Loading ${what}`} />
      <Typography color="text.secondary">Loading {what}…</Typography>
    </Box>
  );
}

/** Newer data is loading while the data shown stays readable (dimming it would take its text below WCAG contrast):
 * a thin bar of fixed height, so nothing moves when it comes and goes. */
export function Refreshing({ active, what }: { active: boolean; what: string }) {
  return <Box sx={{ height: 4 }}>{active && <LinearProgress aria-label={`Refreshing ${what}`} />}</Box>;
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <Alert
      severity="error"
      sx={{ my: 2 }}
      action={
        onRetry ? (
          <Button color="inherit" size="small" onClick={onRetry}>
            Retry
          </Button>
        ) : undefined
      }
    >
      {message}
    </Alert>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Box sx={{ p: 4, textAlign: 'center' }}>
      <Typography variant="subtitle1">{title}</Typography>
      {children && (
        <Typography variant="body2" color="text.secondary" component="div">
          {children}
        </Typography>
      )}
    </Box>
  );
}
