import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';

/** Where a link or an image of untrusted text pointed, shown as text beside its words. */
function Target({ url }: { url: string | undefined }) {
  return url ? (
    <Box component="span" sx={{ color: 'text.secondary', fontFamily: 'monospace', fontSize: '0.85em' }}>
      {' '}
      ({url})
    </Box>
  ) : null;
}

/**
 * Links and images become text: the text comes from a trace or a verdict, which anyone who can make an agent read a
 * document controls (a tool named `[Session expired - sign in again](https://evil.example/login)`). A link shows its
 * words and, beside them, where it pointed, never clickable; an image shows its description, never fetched. Raw HTML
 * is never rendered (react-markdown's default, without rehype-raw).
 */
const UNTRUSTED: Components = {
  a: ({ children, href }: { children?: ReactNode; href?: string }) => (
    <span data-untrusted-link="">
      {children}
      <Target url={href} />
    </span>
  ),
  img: ({ alt, src }: { alt?: string; src?: unknown }) => (
    <span data-untrusted-image="">
      [image{alt ? `: ${alt}` : ''}]
      <Target url={typeof src === 'string' ? src : undefined} />
    </span>
  ),
};

/** Markdown from the judge or the agent, as text: its formatting, never a live link, an image or raw HTML. */
export function Markdown({ text }: { text: string }) {
  return (
    <Box sx={{ '& p': { my: 1 }, '& pre': { overflowX: 'auto' }, overflowWrap: 'anywhere', typography: 'body2' }}>
      <ReactMarkdown components={UNTRUSTED} skipHtml urlTransform={(url) => url}>
        {text}
      </ReactMarkdown>
    </Box>
  );
}
