import { expect, test } from 'vitest';
import { CLIENT_BUDGET_BYTES, clientSize } from '../../scripts/client-size.ts';

test('the client, with openapi-fetch, bundles for browsers within its 4.5 KB gzipped budget', async () => {
  const { gzipped, minified } = await clientSize();
  expect(minified).toBeGreaterThan(1000); // it really bundled something
  expect(gzipped, `client is ${gzipped} bytes gzipped`).toBeLessThanOrEqual(CLIENT_BUDGET_BYTES);
});
