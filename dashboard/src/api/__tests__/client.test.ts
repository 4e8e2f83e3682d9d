// @vitest-environment node
// The wrapper around the generated client, against a fake fetch that answers as the API does.
import { describe, expect, it } from 'vitest';
import { ApiError, createApi, errorMessage, uploadFileName } from '../client';
import { makeScore } from '../../test/fixtures';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** An API at http://api.test whose answers `answer` decides from the request; it records what was asked. */
function fakeApi(answer: (request: Request) => Response | Promise<Response>) {
  const asked: { method: string; url: string; body: string }[] = [];
  const api = createApi({
    baseUrl: 'http://api.test',
    fetch: async (input, init) => {
      const request = new Request(input as Request, init);
      asked.push({ method: request.method, url: request.url, body: await request.clone().text() });
      return answer(request);
    },
  });
  return { api, asked };
}

describe('api client', () => {
  it('returns the parsed body of a successful answer', async () => {
    const score = makeScore();
    const { api, asked } = fakeApi(() => json(202, score));

    await expect(api.requestScore('sess 1', true)).resolves.toEqual(score);
    expect(asked).toEqual([
      { method: 'POST', url: 'http://api.test/api/v1/scoring/sessions/sess%201/score', body: '{"force_rescore":true}' },
    ]);
  });

  it('sends the paging and criteria filters as query parameters', async () => {
    const { api, asked } = fakeApi(() => json(200, { criteria_hash: null, items: [] }));

    await api.missingTools('f'.repeat(64), 5);
    await api.missingTools(null);

    expect(asked.map((a) => new URL(a.url).search)).toEqual([`?criteria_hash=${'f'.repeat(64)}&limit=5`, '?limit=10']);
  });

  it('asks the fleet query for a JSON page with the filters, sort and cursor given', async () => {
    const body = { items: [], next_cursor: null, criteria_hash: null, sort: 'total_score', order: 'asc', limit: 50 };
    const { api, asked } = fakeApi(() => json(200, body));

    await expect(
      api.fleetScores({ criteria_hash: 'any', min_score: 40, agent: 'KubernetesAgent', sort: 'total_score', order: 'asc', cursor: 'c1' }),
    ).resolves.toEqual(body);

    expect(Object.fromEntries(new URL(asked[0].url).searchParams)).toEqual({
      criteria_hash: 'any',
      min_score: '40',
      agent: 'KubernetesAgent',
      sort: 'total_score',
      order: 'asc',
      cursor: 'c1',
      format: 'json',
    });
  });

  it("asks for a session's scores in one request that answers a never-scored session without an error", async () => {
    const none = { session_id: 'sess 1', current: null, latest: null, attempts: [] };
    const { api, asked } = fakeApi(() => json(200, none));

    await expect(api.getSessionScoring('sess 1')).resolves.toEqual(none);
    expect(asked.map((a) => a.url)).toEqual(['http://api.test/api/v1/scoring/sessions/sess%201/scoring']);
  });

  it("turns an error answer into the API's own words and its status", async () => {
    const { api } = fakeApi(() => json(400, { code: 'session_not_scorable', detail: 'session sess-1 is in_progress' }));

    const err = await api.requestScore('sess-1', false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect(errorMessage(err)).toBe('session sess-1 is in_progress');
  });

  it('joins validation problems and falls back to the status when there is no detail', async () => {
    const { api: invalid } = fakeApi(() =>
      json(422, { code: 'validation_error', detail: [{ loc: ['path'], msg: 'bad id' }, { msg: 'too long' }] }),
    );
    await expect(invalid.getSession('x')).rejects.toThrow('bad id; too long');

    const { api: broken } = fakeApi(() => new Response('upstream', { status: 502, statusText: 'Bad Gateway' }));
    await expect(broken.getSession('x')).rejects.toThrow('the API answered 502 Bad Gateway');
  });

  it('says when the API cannot be reached or does not answer in time', async () => {
    const { api: down } = fakeApi(() => Promise.reject(new TypeError('fetch failed')));
    await expect(down.criteriaInUse()).rejects.toThrow('the API could not be reached (fetch failed)');

    const slow = createApi({
      baseUrl: 'http://api.test',
      timeoutMs: 10,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
    });
    const err = await slow.criteriaInUse().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: null, message: 'the API did not answer in time' });
  });

  it('uploads a file as it is, naming it, and sends JSON Lines as such', async () => {
    const stored = { session_id: 'upload:1', source: 'upload', trace_format: 'codex-jsonl', status: 'completed', stages: 1, tool_calls: 2, size_bytes: 30, skipped: [], sessions: [] };
    const seen: { type: string | null }[] = [];
    const { api, asked } = fakeApi((request) => {
      seen.push({ type: request.headers.get('content-type') });
      return json(201, stored);
    });
    const lines = '{"type":"session_meta"}\n{"type":"response_item"}\n';

    await expect(api.importSession(new File([lines], 'rollout 2026/11.jsonl'))).resolves.toEqual(stored);
    await api.importSession(new File(['{"messages": []}'], 'chat.json'));

    expect(asked.map((a) => [a.method, a.url, a.body])).toEqual([
      ['POST', 'http://api.test/api/v1/scoring/sessions:import?file_name=rollout%202026_11.jsonl', lines],
      ['POST', 'http://api.test/api/v1/scoring/sessions:import?file_name=chat.json', '{"messages": []}'],
    ]);
    expect(seen.map((s) => s.type)).toEqual(['application/x-ndjson', 'application/json']);
  });

  it("says why an upload was refused in the API's words", async () => {
    const { api } = fakeApi(() => json(400, { code: 'invalid_request', detail: 'not a session in a recognised format' }));

    await expect(api.importSession(new File(['hello'], 'notes.txt'))).rejects.toThrow('not a session in a recognised format');
  });

  it("keeps an upload's name to the characters the API accepts, with its extension", () => {
    expect(uploadFileName('trace (copy).jsonl')).toBe('trace _copy_.jsonl');
    expect(uploadFileName('é.json')).toBe('_.json');
    expect(uploadFileName('')).toBe('upload.json');
    expect(uploadFileName(`${'x'.repeat(300)}.jsonl`)).toHaveLength(255);
    expect(uploadFileName(`${'x'.repeat(300)}.jsonl`).endsWith('.jsonl')).toBe(true);
  });
});
