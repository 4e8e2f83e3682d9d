import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from './api/client';
import type { SessionScore } from './api/types';

const POLL_MS = 1500;

const isActive = (score: SessionScore | null) => score?.status === 'pending' || score?.status === 'in_progress';

/** A session's latest score and its history; requests a score and polls while the attempt is pending or running. */
export function useSessionScore(sessionId: string) {
  const [score, setScore] = useState<SessionScore | null>(null);
  const [history, setHistory] = useState<SessionScore[]>([]);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [requestError, setRequestError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      const [latest, attempts] = await Promise.all([api.getLatestScore(sessionId), api.getScoreHistory(sessionId)]);
      setScore(latest);
      setHistory(attempts);
    } catch (err) {
      setLoadError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  }, [sessionId]);

  useEffect(() => {
    setLoading(true);
    void load();
  }, [load]);

  // Poll the latest attempt while it is pending or in progress; reload the history once it ends.
  useEffect(() => {
    if (!isActive(score)) return undefined;
    let cancelled = false;
    const timer = window.setTimeout(async () => {
      try {
        const latest = await api.getLatestScore(sessionId);
        if (cancelled) return;
        if (latest && !isActive(latest)) {
          await load();
        } else {
          setScore(latest);
        }
      } catch (err) {
        if (!cancelled) {
          setRequestError(`could not check the scoring progress: ${errorMessage(err)}`);
          setScore((current) => (current ? { ...current } : current)); // try again after the next interval
        }
      }
    }, POLL_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [score, sessionId, load]);

  const request = useCallback(
    async (forceRescore: boolean) => {
      setSubmitting(true);
      setRequestError(null);
      try {
        const attempt = await api.requestScore(sessionId, forceRescore);
        setScore(attempt);
        if (!isActive(attempt)) await load();
      } catch (err) {
        setRequestError(errorMessage(err));
      } finally {
        setSubmitting(false);
      }
    },
    [sessionId, load],
  );

  return { score, history, loading, loadError, submitting, requestError, request, reload: load };
}
