import { describe, expect, test } from 'vitest';
import { missingModelCredentials } from '../../src/agent/model-provider.js';
import { startupModelWarnings } from '../../src/cli/commands/startup-model-warnings.js';
import { DEFAULT_MODEL } from '../../src/config/default-model.js';
import { loadConfig } from '../../src/config/load-config.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const SECRET = { DOCWRIGHT_SECRET: 'x'.repeat(32) };

/** What `serve` and `worker` log before they start, from the parsed configuration. */
describe('start-up model warnings', () => {
  test('a retired default model without credentials: both warnings, the retirement with its date and a current model', () => {
    const config = loadConfig({ ...SECRET, DOCWRIGHT_MODEL: 'anthropic:claude-sonnet-4-5' });
    const warnings = startupModelWarnings(config, missingModelCredentials, NOW);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('ANTHROPIC_API_KEY');
    expect(warnings[1]).toContain('retired by its provider on 2026-05-18');
    expect(warnings[1]).toContain(`for example ${DEFAULT_MODEL}`);
  });

  test('an announced shutdown is warned of before the date', () => {
    const config = loadConfig({ ...SECRET, DOCWRIGHT_MODEL: 'openai:gpt-5', OPENAI_API_KEY: 'sk-test-key-123456' });
    expect(startupModelWarnings(config, missingModelCredentials, NOW)).toEqual([
      `DOCWRIGHT_MODEL "openai:gpt-5" shuts down at its provider on 2026-12-11. Set DOCWRIGHT_MODEL to a current model, for example ${DEFAULT_MODEL}.`,
    ]);
  });

  test('the default model with its key: no warning', () => {
    const config = loadConfig({ ...SECRET, ANTHROPIC_API_KEY: 'sk-ant-test-key-123456' });
    expect(startupModelWarnings(config, missingModelCredentials, NOW)).toEqual([]);
  });
});
