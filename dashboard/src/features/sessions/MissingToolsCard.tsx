import { Card, CardContent, List, ListItem, ListItemText, Typography } from '@mui/material';
import type { MissingTool } from '../../api/generated/schema';

/** The MCP tools the judge says should have been used, each with its rationale. */
export function MissingToolsCard({ tools }: { tools: MissingTool[] }) {
  return (
    <Card variant="outlined" data-testid="missing-tools-card">
      <CardContent>
        <Typography variant="h6" component="h2">Missing tools ({tools.length})</Typography>
        {tools.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            The judge named no missing tools.
          </Typography>
        ) : (
          <List dense disablePadding>
            {tools.map((tool, i) => (
              <ListItem key={`${tool.tool_name}-${i}`} disableGutters data-testid="missing-tool">
                <ListItemText
                  primary={<code>{tool.tool_name}</code>}
                  secondary={tool.rationale}
                  slotProps={{ secondary: { sx: { whiteSpace: 'pre-wrap' } } }}
                />
              </ListItem>
            ))}
          </List>
        )}
      </CardContent>
    </Card>
  );
}
