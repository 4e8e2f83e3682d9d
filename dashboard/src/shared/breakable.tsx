import { Fragment, type ReactNode } from 'react';

/** A name (a tool, a session id) with a line-break opportunity after each `_`, `.`, `/`, `:` and `-`, so a narrow
 * column wraps it between its parts ("prometheus_" / "query") rather than mid-word. Pair it with
 * `overflowWrap: 'break-word'`, which breaks inside a part only when the part alone is wider than the column. */
export function breakable(name: string): ReactNode {
  const parts = name.split(/(?<=[_./:-])/);
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}
