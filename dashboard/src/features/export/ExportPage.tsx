import { Alert, Box, Button, Card, CardContent, FormControl, InputLabel, Link, LinearProgress, NativeSelect, OutlinedInput, Stack, TextField, Typography } from '@mui/material';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, api, errorMessage, streamTrainingExport, type TrainingExportQuery } from '../../api/client';
import { criteriaLabel, useCriteriaInUse } from '../../shared/criteria';

type Progress =
  | { state: 'idle' }
  | { state: 'running'; lines: number; job?: string }
  | { state: 'done'; href: string; lines: number; bytes: number | null; fileName: string; expires?: string | null }
  | { state: 'failed'; message: string };

const FORMATS: Record<TrainingExportQuery['format'], string> = {
  'openai-chat': 'OpenAI chat (messages, tool calls)',
  normalized: 'Normalised session (as scored)',
};
const JOB_POLL_MS = 2000;

const sizeText = (bytes: number | null) => (bytes === null ? '' : `, ${bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`}`);

/** Training data from the dashboard: the sessions that scored at least a minimum under a criteria, as JSON Lines, over
 * the export API (streamed here where no exports bucket is configured, else a job written to S3 and polled); the
 * progress while it runs, then the file's link. */
export function ExportPage() {
  const { data: criteria = [] } = useCriteriaInUse();
  const [minScore, setMinScore] = useState('85');
  const [criteriaHash, setCriteriaHash] = useState('current');
  const [format, setFormat] = useState<TrainingExportQuery['format']>('openai-chat');
  const [progress, setProgress] = useState<Progress>({ state: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const objectUrl = useRef<string | null>(null);
  useEffect(
    () => () => {
      abort.current?.abort();
      if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    },
    [],
  );

  const score = Number(minScore);
  const invalid = minScore.trim() === '' || !Number.isInteger(score) || score < 0 || score > 100;
  const current = criteria.find((c) => c.is_current);

  const asJob = async (query: TrainingExportQuery) => {
    let job = await api.requestTrainingExport(query);
    while (job.status === 'queued' || job.status === 'running') {
      setProgress({ state: 'running', lines: job.rows_written ?? 0, job: job.status });
      await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
      job = await api.getExport(job.export_id);
    }
    if (job.status !== 'completed' || !job.download_url) throw new ApiError(null, job.error ?? `the export ended ${job.status}`);
    setProgress({
      state: 'done',
      href: job.download_url,
      lines: job.rows_written ?? 0,
      bytes: job.bytes_written ?? null,
      fileName: 'training-export.jsonl',
      expires: job.expires_at,
    });
  };

  const start = async (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    const query: TrainingExportQuery = { min_score: score, criteria_hash: criteriaHash, format };
    abort.current?.abort();
    abort.current = new AbortController();
    if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    setProgress({ state: 'running', lines: 0 });
    try {
      const { blob, lines } = await streamTrainingExport(query, (n) => setProgress({ state: 'running', lines: n }), abort.current.signal);
      objectUrl.current = URL.createObjectURL(blob);
      setProgress({ state: 'done', href: objectUrl.current, lines, bytes: blob.size, fileName: `training-${format}-min${score}.jsonl` });
    } catch (err) {
      if (err instanceof ApiError && err.status === 405) {
        try {
          await asJob(query);
        } catch (jobError) {
          setProgress({ state: 'failed', message: errorMessage(jobError) });
        }
        return;
      }
      if (err instanceof DOMException && err.name === 'AbortError') return;
      setProgress({ state: 'failed', message: errorMessage(err) });
    }
  };

  const running = progress.state === 'running';
  return (
    <>
      <Typography variant="h5" component="h1" gutterBottom>
        Export training data
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 760 }}>
        The sessions whose latest completed score under the chosen criteria is at least the minimum, one JSON line each:
        the score, its breakdown and criteria, and the conversation as the recording has it.
      </Typography>
      <Box component="form" aria-label="training export" onSubmit={start} noValidate sx={{ mb: 2 }}>
        <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1.5} alignItems="flex-start">
          <TextField
            size="small"
            type="number"
            label="Minimum score"
            value={minScore}
            onChange={(e) => setMinScore(e.target.value)}
            error={invalid}
            helperText={invalid ? 'A whole number from 0 to 100' : ' '}
            slotProps={{ htmlInput: { min: 0, max: 100 } }}
            sx={{ width: 150 }}
          />
          <FormControl size="small" sx={{ minWidth: 220, maxWidth: '100%' }}>
            <InputLabel htmlFor="export-criteria" shrink>
              Criteria
            </InputLabel>
            <NativeSelect value={criteriaHash} onChange={(e) => setCriteriaHash(e.target.value)} input={<OutlinedInput label="Criteria" notched id="export-criteria" />}>
              <option value="current">{current ? `Current: ${criteriaLabel(current)}` : 'Current'}</option>
              <option value="any">Any (each session's latest score)</option>
              {criteria
                .filter((c) => !c.is_current)
                .map((c) => (
                  <option key={c.criteria_hash} value={c.criteria_hash}>
                    {criteriaLabel(c)} · {c.completed_sessions} sessions
                  </option>
                ))}
            </NativeSelect>
          </FormControl>
          <FormControl size="small" sx={{ minWidth: 220, maxWidth: '100%' }}>
            <InputLabel htmlFor="export-format" shrink>
              Format
            </InputLabel>
            <NativeSelect
              value={format}
              onChange={(e) => setFormat(e.target.value as TrainingExportQuery['format'])}
              input={<OutlinedInput label="Format" notched id="export-format" />}
            >
              {(Object.keys(FORMATS) as TrainingExportQuery['format'][]).map((f) => (
                <option key={f} value={f}>
                  {FORMATS[f]}
                </option>
              ))}
            </NativeSelect>
          </FormControl>
          <Button type="submit" variant="contained" disabled={invalid || running}>
            Export
          </Button>
        </Stack>
      </Box>
      <Card variant="outlined" data-testid="export-progress" data-state={progress.state}>
        <CardContent>
          {progress.state === 'idle' && (
            <Typography variant="body2" color="text.secondary">
              Choose the minimum score, the criteria and the format, then Export.
            </Typography>
          )}
          {running && (
            <Box role="status">
              <LinearProgress aria-label="Exporting" sx={{ mb: 1 }} />
              <Typography variant="body2">
                {progress.job ? `The export job is ${progress.job}… ` : 'Exporting… '}
                {progress.lines} session{progress.lines === 1 ? '' : 's'} so far
              </Typography>
            </Box>
          )}
          {progress.state === 'done' && (
            <Box role="status">
              <Typography variant="body1" data-testid="export-count">
                {progress.lines} session{progress.lines === 1 ? '' : 's'} exported{sizeText(progress.bytes)}.
              </Typography>
              {progress.lines === 0 && (
                <Alert severity="info" sx={{ my: 1 }}>
                  No session scored at least {minScore} under this criteria: lower the minimum or choose other criteria.
                </Alert>
              )}
              <Link href={progress.href} download={progress.fileName} data-testid="export-link">
                Download {progress.fileName}
              </Link>
              {progress.expires && (
                <Typography variant="caption" color="text.secondary" component="div">
                  The link works until {progress.expires}.
                </Typography>
              )}
            </Box>
          )}
          {progress.state === 'failed' && (
            <Alert severity="error" role="alert">
              Could not export: {progress.message}
            </Alert>
          )}
        </CardContent>
      </Card>
    </>
  );
}
