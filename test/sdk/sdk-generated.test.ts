import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from 'vitest';
import { generatedSdkFiles } from '../../scripts/generate-sdk.js';

// The SDK's checked-in OpenAPI document and types are what the routes say now: a route
// changed without `npm run sdk:generate` fails here.
test('packages/sdk/openapi.json and src/schema.ts are up to date with the routes', async () => {
  for (const [file, expected] of Object.entries(await generatedSdkFiles())) {
    const actual = await readFile(file, 'utf8').catch(() => '');
    expect(actual === expected, `${path.relative(process.cwd(), file)} is out of date: run \`npm run sdk:generate\` and commit the result`).toBe(true);
  }
});
