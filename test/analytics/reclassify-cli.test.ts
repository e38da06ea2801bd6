import { describe, expect, test } from 'vitest';
import { createAnalyticsKit, USER_AGENTS } from '../helpers/analytics-kit.js';
import { clickhouseCount, clickhouseRows } from '../helpers/clickhouse-rows.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_SECRET } from '../helpers/test-app.js';

describe.each(['sqlite', 'clickhouse'] as const)('docwright reclassify [%s]', (backend) => {
  test('rewrites the hits an older table classified, reports what it did, and finds nothing the second time', async () => {
    const kit = await createAnalyticsKit(backend);
    try {
      const clickhouse = kit.t.config.analytics.clickhouse;
      const environment = {
        DOCWRIGHT_DATA_DIR: kit.t.config.dataDir,
        DOCWRIGHT_SECRET: TEST_SECRET,
        ...(clickhouse === undefined ? {} : { DOCWRIGHT_ANALYTICS_URL: `${clickhouse.url}/${clickhouse.database}` }),
      };
      const sent = await kit.send([
        { path: '/a', visitorId: 'v1', userAgent: USER_AGENTS.human },
        { path: '/b', visitorId: 'v2', userAgent: USER_AGENTS.ai },
      ]);
      expect(sent.json()).toMatchObject({ accepted: 2 });
      // As if an older Docwright had stored them: another table version.
      const { db } = kit.t.services.database;
      const old = await db.insertInto('analytics_classifier_versions').values({ version: '2000-01-01' }).returning('id').executeTakeFirstOrThrow();
      if (clickhouse === undefined) await db.updateTable('analytics_hits').set({ classifier_version: old.id }).execute();
      else {
        await clickhouseRows(kit.t, `ALTER TABLE analytics_hits UPDATE classifier_version = ${old.id} WHERE 1`);
        await expect.poll(() => clickhouseCount(kit.t, `SELECT count() FROM analytics_hits WHERE classifier_version = ${old.id}`)).toBe(2);
      }

      const first = await runCli(['reclassify', '--json'], environment);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ state: 'done', sites: 1, sitesDone: 1, hitsRewritten: 2 });
      const second = await runCli(['reclassify'], environment);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/^Every stored hit is classified with agent table \d{4}-\d{2}-\d{2}\.$/m);
      expect((await kit.get('visitors')).json().totals).toEqual({ human: 1, ai: 1, total: 2 });
    } finally {
      await kit.close();
    }
  });
});
