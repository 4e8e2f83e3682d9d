import { Fragment, type ReactNode } from 'react';

/** A name (a tool, a session id, an agent) with a line-break opportunity after each `_`, `.`, `/`, `:` and `-` and
 * between the words of a CamelCase name, so a narrow column wraps it between its parts ("prometheus_" / "query",
 * "Security" / "Agent") rather than mid-word. Pair it with
 * `overflowWrap: 'break-word'`, which breaks inside a part only when the part alone is wider than the column. */
export function breakable(name: string): ReactNode {
  const parts = name.split(/(?<=[_./:-])|(?<=[a-z])(?=[A-Z])/);
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}
