// The upload feature's server state: a trace file sent to the import endpoint.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { sessionKeys } from '../sessions/queries';

/** Upload one file; the sessions list then shows the sessions it stored. */
export function useImportSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => api.importSession(file),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: sessionKeys.all }),
  });
}
