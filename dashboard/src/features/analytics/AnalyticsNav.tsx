import { Box, Button } from '@mui/material';
import { NavLink } from 'react-router-dom';

const VIEWS = [
  { to: '/analytics', label: 'Overview', end: true },
  { to: '/analytics/trends', label: 'Trends', end: false },
  { to: '/analytics/compare', label: 'Compare criteria', end: false },
  { to: '/analytics/missing-tools', label: 'Missing tools', end: false },
];

/** The Analytics views, as links (each view has its own address, so it can be shared and bookmarked). */
export function AnalyticsNav() {
  return (
    <Box component="nav" aria-label="Analytics views" sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mb: 2 }}>
      {VIEWS.map((view) => (
        <Button
          key={view.to}
          component={NavLink}
          to={view.to}
          end={view.end}
          size="small"
          sx={{ textTransform: 'none', '&.active': { bgcolor: 'primary.main', color: 'primary.contrastText' } }}
        >
          {view.label}
        </Button>
      ))}
    </Box>
  );
}
