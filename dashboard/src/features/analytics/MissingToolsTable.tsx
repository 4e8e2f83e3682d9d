import { Link, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import type { MissingToolsReport } from '../../api/generated/schema';
import { breakable } from '../../shared/breakable';
import { EmptyState } from '../../shared/components/StateViews';
import { ToolSparkline } from './ToolSparkline';

const wide = { display: { xs: 'none', md: 'table-cell' } };

/** The tools judged missing most often: sessions (and in how many the tool was available, i.e. unused rather than
 * not built), a trend sparkline, the agents and the spellings, each tool linking to its sessions. */
export function MissingToolsTable({ report, criteriaHash }: { report: MissingToolsReport; criteriaHash: string | null }) {
  if (report.items.length === 0) {
    return <EmptyState title="No missing tools named">No completed score names a missing tool.</EmptyState>;
  }
  const query = criteriaHash ? `?criteria_hash=${encodeURIComponent(criteriaHash)}` : '';
  const hasTrends = report.items.some((t) => t.trend.length > 0);
  const hasAgents = report.items.some((t) => t.by_agent.length > 0);
  return (
    <TableContainer>
      <Table size="small" aria-label="Most frequent missing tools">
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col">
              Tool
            </TableCell>
            <TableCell component="th" scope="col" align="right">
              Sessions
            </TableCell>
            {hasTrends && (
              <TableCell component="th" scope="col">
                Trend (per {report.bucket})
              </TableCell>
            )}
            {hasAgents && (
              <TableCell component="th" scope="col" sx={wide}>
                Agents
              </TableCell>
            )}
          </TableRow>
        </TableHead>
        <TableBody>
          {report.items.map((tool) => (
            <TableRow key={tool.tool_name} data-testid="missing-tool-row" data-tool={tool.tool_name}>
              {/* names wrap between their parts (prometheus_ / query), never mid-word */}
              <TableCell sx={{ overflowWrap: 'break-word' }}>
                <Link
                  component={RouterLink}
                  to={`/analytics/missing-tools/${encodeURIComponent(tool.tool_name)}${query}`}
                  aria-label={tool.tool_name}
                >
                  {breakable(tool.tool_name)}
                </Link>
                {tool.spellings.length > 1 && (
                  <Typography variant="caption" color="text.secondary" component="div">
                    also written{' '}
                    {tool.spellings
                      .filter((s) => s !== tool.tool_name)
                      .map((s, i) => (
                        <span key={s}>
                          {i > 0 && ', '}
                          {breakable(s)}
                        </span>
                      ))}
                  </Typography>
                )}
              </TableCell>
              <TableCell align="right" data-testid="missing-tool-count">
                {tool.count}
                {tool.available_in_sessions > 0 && (
                  <Typography variant="caption" color="text.secondary" component="div" data-testid="missing-tool-available">
                    available in {tool.available_in_sessions}
                  </Typography>
                )}
              </TableCell>
              {hasTrends && <TableCell>{tool.trend.length > 0 ? <ToolSparkline tool={tool.tool_name} trend={tool.trend} /> : '—'}</TableCell>}
              {hasAgents && (
                <TableCell sx={wide}>
                  {tool.by_agent.length > 0
                    ? tool.by_agent
                        .slice(0, 3)
                        .map((a) => `${a.agent ?? 'unknown'} ${a.count}`)
                        .join(', ')
                    : '—'}
                </TableCell>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
