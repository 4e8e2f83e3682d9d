import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../Markdown';

const PHISHING = '[Session expired - sign in again](https://evil.example/login)';

describe('Markdown of untrusted text', () => {
  it('shows a link as its words and where it pointed, never as a link', () => {
    const { container } = render(<Markdown text={`The agent called ${PHISHING} twice.`} />);

    expect(screen.queryByRole('link')).toBeNull();
    expect(container.querySelector('a')).toBeNull();
    expect(container.textContent).toContain('Session expired - sign in again (https://evil.example/login)');
  });

  it('never makes a reference link, an autolink or a javascript: link live', () => {
    const text = ['[click][ref]', '', '[ref]: https://evil.example/r', '', '<https://evil.example/auto>', '', '[x](javascript:alert(1))'].join('\n');
    const { container } = render(<Markdown text={text} />);

    expect(container.querySelector('a')).toBeNull();
    expect(container.querySelector('[href]')).toBeNull();
    expect(container.textContent).toContain('javascript:alert(1)');
  });

  it('shows an image as its description, never fetched', () => {
    const { container } = render(<Markdown text="![track me](https://evil.example/pixel.png)" />);

    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('[src]')).toBeNull();
    expect(container.textContent).toContain('[image: track me] (https://evil.example/pixel.png)');
  });

  it('renders no raw HTML, neither as elements nor as handlers', () => {
    const { container } = render(
      <Markdown text={'<a href="https://evil.example">x</a> <img src=x onerror="alert(1)"> <iframe src="https://evil.example"></iframe> <script>alert(1)</script>'} />,
    );

    for (const tag of ['a', 'img', 'iframe', 'script']) expect(container.querySelector(tag)).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
  });

  it('keeps the formatting that makes a verdict readable', () => {
    const { container } = render(<Markdown text={'**Limits** were never read:\n\n- events\n- `kubectl top`'} />);

    expect(container.querySelector('strong')?.textContent).toBe('Limits');
    expect(container.querySelectorAll('li')).toHaveLength(2);
    expect(container.querySelector('code')?.textContent).toBe('kubectl top');
  });
});
