import type { Clock } from '../core/clock.js';
import { SecretBox } from '../core/secret-box.js';
import type { Config } from '../config/load-config.js';
import type { Database } from '../db/database.js';
import { ApiKeyService } from '../keys/api-key-service.js';
import { ProjectRepository } from '../projects/project-repository.js';

/** Everything the HTTP routes, the worker and the CLI share; built once per process. */
export interface Services {
  config: Config;
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  projects: ProjectRepository;
  keys: ApiKeyService;
}

export function createServices(input: { config: Config; database: Database; clock: Clock }): Services {
  const { config, database, clock } = input;
  return {
    config,
    database,
    clock,
    secretBox: new SecretBox(config.secret),
    projects: new ProjectRepository(database.db, clock),
    keys: new ApiKeyService(database.db, clock),
  };
}
