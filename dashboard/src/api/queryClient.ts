// The dashboard's one TanStack Query cache (provided in main.tsx): every feature's hooks read and write it.
import { QueryClient } from '@tanstack/react-query';
import { isTransient } from './client';

const MAX_ATTEMPTS = 3;

/** The dashboard's cache: a failed read is tried again only when the failure may pass (no answer, 429, 5xx). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: (failures, err) => failures < MAX_ATTEMPTS - 1 && isTransient(err) },
      mutations: { retry: false },
    },
  });
}
