// Upload an agent's trace (drag and drop or choose a file): the API detects the format, stores each trajectory as a
// session and says what it skipped; each stored session can then be scored from here.
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Link,
  List,
  ListItem,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { type DragEvent, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { ImportedSession, ImportedTrajectory } from '../../api/generated/schema';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { shortSessionId } from '../../shared/components/SessionId';
import { isActive } from '../../shared/scoreStatus';
import { useRequestScore, useSessionScoring } from '../sessions/queries';
import { useImportSession } from './queries';

const wide = { display: { xs: 'none', md: 'table-cell' } };

/** What was uploaded and what the API made of it (or why it refused it). */
interface Upload {
  key: number;
  fileName: string;
  result: ImportedSession | null;
  error: string | null;
}

/** One stored session: its figures, Score (then its progress and score, polled), and a link to its page. */
function StoredSession({ trajectory }: { trajectory: ImportedTrajectory }) {
  const scoring = useSessionScoring(trajectory.session_id);
  const request = useRequestScore(trajectory.session_id);
  const latest = scoring.data?.latest ?? null;
  const scorable = trajectory.status === 'completed';
  const href = `/sessions/${encodeURIComponent(trajectory.session_id)}`;
  return (
    <TableRow data-testid="uploaded-session" data-session-id={trajectory.session_id}>
      <TableCell>
        <Link component={RouterLink} to={href} title={trajectory.session_id}>
          <code>{shortSessionId(trajectory.session_id)}</code>
        </Link>
        {trajectory.original_session_id && (
          <Typography variant="caption" color="text.secondary" component="div" sx={{ overflowWrap: 'anywhere' }}>
            was {trajectory.original_session_id}
          </Typography>
        )}
      </TableCell>
      <TableCell sx={wide}>{trajectory.status}</TableCell>
      <TableCell sx={wide}>
        {trajectory.tool_calls}
        {trajectory.failed_tool_calls > 0 && ` (${trajectory.failed_tool_calls} failed)`}
      </TableCell>
      <TableCell sx={wide}>{trajectory.reasoning_steps}</TableCell>
      <TableCell sx={wide}>{trajectory.final_answer_source ?? 'none found'}</TableCell>
      <TableCell>
        {latest ? (
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <ScoreBadge score={latest} />
            {latest.status === 'failed' && (
              <Typography variant="caption" color="error">
                {latest.error_message}
              </Typography>
            )}
          </Box>
        ) : scorable ? (
          <Button
            size="small"
            variant="contained"
            disabled={request.isPending || scoring.isPending}
            onClick={() => request.mutate(false)}
            aria-label={`Score ${shortSessionId(trajectory.session_id)}`}
          >
            {request.isPending ? 'Queueing…' : 'Score'}
          </Button>
        ) : (
          <Typography variant="caption" color="text.secondary">
            {trajectory.status}: only completed sessions can be scored
          </Typography>
        )}
        {request.error && (
          <Typography variant="caption" color="error" component="div">
            {errorMessage(request.error)}
          </Typography>
        )}
        {latest && isActive(latest.status) && (
          <Typography variant="caption" color="text.secondary" component="div">
            the score appears here when the judge is done
          </Typography>
        )}
      </TableCell>
    </TableRow>
  );
}

/** A whole upload's answer: the format, what was skipped and dropped, every session stored. */
function UploadResult({ upload }: { upload: Upload }) {
  const result = upload.result;
  if (!result) {
    return (
      <Alert severity="error" sx={{ mb: 2 }} data-testid="upload-error">
        Could not upload {upload.fileName}: {upload.error}
      </Alert>
    );
  }
  const sessions = result.sessions;
  return (
    <Card variant="outlined" sx={{ mb: 2 }} data-testid="upload-result" component="section" aria-labelledby={`upload-${upload.key}`}>
      <CardContent>
        <Typography variant="h6" component="h2" id={`upload-${upload.key}`} sx={{ overflowWrap: 'anywhere' }}>
          {upload.fileName}
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center', my: 1 }}>
          <Typography variant="body2">Format</Typography>
          <Chip size="small" label={result.trace_format} data-testid="upload-format" />
          <Typography variant="body2" color="text.secondary">
            {sessions.length} session{sessions.length === 1 ? '' : 's'} stored · {(result.size_bytes / 1024).toFixed(1)} KB
          </Typography>
        </Box>
        {result.skipped.length > 0 ? (
          <>
            <Typography variant="subtitle2" component="h3">
              Not shown in the transcript
            </Typography>
            <List dense disablePadding data-testid="upload-skipped">
              {result.skipped.map((s) => (
                <ListItem key={s.what} disableGutters sx={{ display: 'block' }}>
                  <Typography variant="body2" component="span">
                    {s.count} × {s.what}
                  </Typography>
                  <Typography variant="body2" color="text.secondary" component="span">
                    {' '}
                    — {s.reason}
                  </Typography>
                </ListItem>
              ))}
            </List>
          </>
        ) : (
          <Typography variant="body2" color="text.secondary">
            Nothing was skipped: the transcript shows the whole document.
          </Typography>
        )}
        {result.dropped && (
          <Alert severity="info" sx={{ mt: 1 }}>
            {result.dropped}
          </Alert>
        )}
        <TableContainer sx={{ mt: 1 }}>
          <Table size="small" aria-label={`Sessions stored from ${upload.fileName}`} sx={{ tableLayout: 'fixed' }}>
            <TableHead>
              <TableRow>
                <TableCell>Session</TableCell>
                <TableCell sx={wide}>Status</TableCell>
                <TableCell sx={wide}>Tool calls</TableCell>
                <TableCell sx={wide}>Reasoning steps</TableCell>
                <TableCell sx={wide}>Final answer from</TableCell>
                <TableCell sx={{ width: { xs: 150, md: 220 } }}>Score</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {sessions.map((t) => (
                <StoredSession key={t.session_id} trajectory={t} />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </CardContent>
    </Card>
  );
}

/** Drop files on the page (or choose them); each is uploaded in turn and its answer shown, newest first. */
export function UploadPage() {
  const upload = useImportSession();
  const input = useRef<HTMLInputElement>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const send = async (files: File[]) => {
    for (const file of files) {
      setBusy(file.name);
      const key = Date.now() + Math.random();
      try {
        const result = await upload.mutateAsync(file);
        setUploads((u) => [{ key, fileName: file.name, result, error: null }, ...u]);
      } catch (err) {
        setUploads((u) => [{ key, fileName: file.name, result: null, error: errorMessage(err) }, ...u]);
      }
    }
    setBusy(null);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void send([...event.dataTransfer.files]);
  };

  return (
    <>
      <Typography variant="h5" component="h1" gutterBottom>
        Upload a trace
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        An agent's session as it saved it: OpenAI (chat or responses), Anthropic messages, OpenTelemetry GenAI spans,
        Codex or Claude Code logs (JSON, or JSON Lines named <code>.jsonl</code>). The format is detected; each
        trajectory in the file becomes a session you can score.
      </Typography>
      <Box
        data-testid="upload-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        sx={{
          border: 2,
          borderStyle: 'dashed',
          borderColor: over ? 'primary.main' : 'grey.400',
          bgcolor: over ? 'action.hover' : 'transparent',
          borderRadius: 2,
          p: { xs: 2, sm: 4 },
          mb: 2,
          textAlign: 'center',
        }}
      >
        <Typography sx={{ mb: 1 }}>Drop trace files here, or</Typography>
        <Button variant="contained" onClick={() => input.current?.click()} disabled={busy !== null}>
          Choose files
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          accept=".json,.jsonl,application/json,application/x-ndjson"
          hidden
          aria-hidden
          tabIndex={-1}
          data-testid="upload-input"
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            void send(files);
          }}
        />
        <Typography variant="body2" color="text.secondary" role="status" sx={{ mt: 1, minHeight: '1.5em' }}>
          {busy ? `Uploading ${busy}…` : ''}
        </Typography>
      </Box>
      {uploads.map((u) => (
        <UploadResult key={u.key} upload={u} />
      ))}
    </>
  );
}
