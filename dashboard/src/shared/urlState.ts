import { useSearchParams } from 'react-router-dom';

/** A view's state in its URL (shareable): read with `params.get`, change several keys at once (null removes one). */
export function useUrlState() {
  const [params, setParams] = useSearchParams();
  const update = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    setParams(merged, { replace: true });
  };
  return { params, update };
}
