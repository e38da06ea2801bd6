import type { Dialect } from '../../src/db/database.js';
import type { ProjectSettings } from '../../src/projects/project.js';
import { createTestApp, createTestProject, type TestApp } from './test-app.js';

export interface ListeningTestApp {
  testApp: TestApp;
  /** http://127.0.0.1:PORT */
  url: string;
  projectId: string;
  /** An admin key of the project. */
  apiKey: string;
  close(): Promise<void>;
}

/** The real app listening on a free loopback port, with one project and an admin key: for tests that run the CLI against it. */
export async function startListeningTestApp(
  dialect: Dialect = 'sqlite',
  environment: Record<string, string> = {},
  options: { settings?: ProjectSettings } = {},
): Promise<ListeningTestApp> {
  const testApp = await createTestApp(dialect, environment);
  try {
    const project =
      options.settings === undefined
        ? await createTestProject(testApp.services)
        : await testApp.services.projects.create({ name: 'Docs', repository: testApp.config.dataDir, ref: 'main', forge: 'local', settings: options.settings });
    const key = await testApp.services.keys.create({ projectId: project.id, scope: 'admin' });
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const address = testApp.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { testApp, url: `http://127.0.0.1:${port}`, projectId: project.id, apiKey: key.key, close: () => testApp.close() };
  } catch (error) {
    await testApp.close();
    throw error;
  }
}
