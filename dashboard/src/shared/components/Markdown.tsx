import { Box } from '@mui/material';
import ReactMarkdown from 'react-markdown';

/** Markdown from the judge or the agent (no raw HTML is rendered). */
export function Markdown({ text }: { text: string }) {
  return (
    <Box sx={{ '& p': { my: 1 }, '& pre': { overflowX: 'auto' }, overflowWrap: 'anywhere', typography: 'body2' }}>
      <ReactMarkdown>{text}</ReactMarkdown>
    </Box>
  );
}
