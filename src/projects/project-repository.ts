import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DatabaseSchema } from '../db/schema.js';
import { projectFromRow, type Project, type ProjectSettings } from './project.js';
import type { NormalisedProjectInput } from './project-input.js';

export class ProjectRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: Clock,
  ) {}

  async create(input: NormalisedProjectInput, sealedCredentials: string | null = null): Promise<Project> {
    const now = this.clock.now();
    const row = {
      id: newId(),
      name: input.name,
      repository: input.repository,
      ref: input.ref,
      forge: input.forge,
      settings: JSON.stringify(input.settings),
      forge_credentials: sealedCredentials,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('projects').values(row).execute();
    return projectFromRow(row);
  }

  async find(id: string): Promise<Project | null> {
    const row = await this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? projectFromRow(row) : null;
  }

  async get(id: string): Promise<Project> {
    const project = await this.find(id);
    if (!project) throw notFound(`No project with id "${id}".`);
    return project;
  }

  async list(options: { limit: number; offset: number }): Promise<Project[]> {
    const rows = await this.db
      .selectFrom('projects')
      .selectAll()
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(options.limit)
      .offset(options.offset)
      .execute();
    return rows.map(projectFromRow);
  }

  async sealedCredentials(id: string): Promise<string | null> {
    const row = await this.db.selectFrom('projects').select('forge_credentials').where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No project with id "${id}".`);
    return row.forge_credentials;
  }

  async update(id: string, changes: { settings?: ProjectSettings; sealedCredentials?: string | null }): Promise<Project> {
    const values: Partial<Pick<import('../db/schema.js').ProjectsTable, 'settings' | 'forge_credentials' | 'updated_at'>> = {
      updated_at: this.clock.now(),
    };
    if (changes.settings !== undefined) values.settings = JSON.stringify(changes.settings);
    if (changes.sealedCredentials !== undefined) values.forge_credentials = changes.sealedCredentials;
    const result = await this.db.updateTable('projects').set(values).where('id', '=', id).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw notFound(`No project with id "${id}".`);
    return this.get(id);
  }
}
