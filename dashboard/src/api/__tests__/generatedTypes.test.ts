// @vitest-environment node
// The committed generated types are what openapi-typescript makes of the committed openapi.json (which a pytest keeps
// equal to what the API produces): together, the dashboard cannot compile against an API that is not there.
import { describe, expect, it } from 'vitest';
import { STALE_MESSAGE, isUpToDate } from '../../../scripts/api-types.mjs';

describe('generated API types', () => {
  it('match what the generator produces from openapi.json', async () => {
    expect(await isUpToDate(), STALE_MESSAGE).toBe(true);
  });
});
