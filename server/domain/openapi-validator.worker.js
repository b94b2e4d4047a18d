// Validates OpenAPI documents with @readme/openapi-parser off the main thread: the parser compiles the OpenAPI JSON
// Schema on every call, which holds the CPU for up to a second. Plain JavaScript, so that Node loads it as it is.
import { parentPort } from 'node:worker_threads';
import { compileErrors, validate } from '@readme/openapi-parser';

parentPort.on('message', async ({ id, document }) => {
  let error;
  try {
    // External $refs (other files, URLs) are not followed: kept as written, not checked.
    const result = await validate(document, { resolve: { external: false } });
    if (!result.valid) error = compileErrors(result);
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  parentPort.postMessage({ id, error });
});
