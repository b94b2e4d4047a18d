import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../../..');
export const generatedDir = path.join(repoRoot, 'generated');
export const openapiPath = path.join(generatedDir, 'openapi.yaml');
