import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { SecretBox } from '../core/secret-box.js';
import type { DatabaseSchema, ProjectsTable } from '../db/schema.js';
import type { ForgeCredentials } from '../git/forges/forge.js';
import { projectFromRow, type Project, type ProjectSettings } from './project.js';
import type { NormalisedProjectInput } from './project-input.js';

/**
 * Projects, with their forge credentials sealed at this boundary: a project's credentials
 * are sealed for its id and open only for it (see SecretBox), so no caller can get the
 * binding wrong.
 */
export class ProjectRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: Clock,
    private readonly secretBox: SecretBox,
  ) {}

  async create(input: NormalisedProjectInput, credentials: ForgeCredentials | null = null): Promise<Project> {
    const now = this.clock.now();
    const id = newId();
    const row = {
      id,
      name: input.name,
      repository: input.repository,
      ref: input.ref,
      forge: input.forge,
      settings: JSON.stringify(input.settings),
      forge_credentials: this.seal(id, credentials),
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

  /** Every project, oldest first (the dashboard's list; instances hold tens, not millions). */
  async listAll(): Promise<Project[]> {
    const rows = await this.db.selectFrom('projects').selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
    return rows.map(projectFromRow);
  }

  /** The project's forge credentials, or null; `secret_unreadable` if they were not sealed for it. */
  async credentials(id: string): Promise<ForgeCredentials | null> {
    const row = await this.db.selectFrom('projects').select('forge_credentials').where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No project with id "${id}".`);
    return row.forge_credentials === null ? null : (JSON.parse(this.secretBox.open(row.forge_credentials, id)) as ForgeCredentials);
  }

  async update(id: string, changes: { name?: string; ref?: string; settings?: ProjectSettings; credentials?: ForgeCredentials | null }): Promise<Project> {
    const values: Partial<Pick<ProjectsTable, 'name' | 'ref' | 'settings' | 'forge_credentials' | 'updated_at'>> = {
      updated_at: this.clock.now(),
    };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.ref !== undefined) values.ref = changes.ref;
    if (changes.settings !== undefined) values.settings = JSON.stringify(changes.settings);
    if (changes.credentials !== undefined) values.forge_credentials = this.seal(id, changes.credentials);
    const result = await this.db.updateTable('projects').set(values).where('id', '=', id).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw notFound(`No project with id "${id}".`);
    return this.get(id);
  }

  /**
   * Re-seals credentials stored by versions before 2 (v1, bound to nothing) for their
   * project. Run at start-up and by `docwright migrate`; safe when several processes run it
   * at once, since each row is only replaced if it still holds the value that was read.
   * Rows this secret cannot open are left as they are (their jobs fail with secret_unreadable).
   */
  /**
   * Re-seals v1 credentials as v2, bound to their project: only the exact values recorded
   * by migration 008 for that same project, so a v1 value copied into another row later
   * (from a backup, say) stays unreadable instead of being adopted by that project.
   */
  async upgradeLegacyCredentials(): Promise<{ upgraded: number; unreadable: number }> {
    const rows = await this.db
      .selectFrom('legacy_forge_credentials')
      .innerJoin('projects', 'projects.id', 'legacy_forge_credentials.project_id')
      .select(['projects.id as id', 'projects.forge_credentials as current', 'legacy_forge_credentials.sealed as legacy'])
      .execute();
    let upgraded = 0;
    let unreadable = 0;
    for (const row of rows) {
      if (row.current === row.legacy && this.secretBox.isLegacy(row.legacy)) {
        let resealed: string | null = null;
        try {
          resealed = this.secretBox.upgrade(row.legacy, row.id);
        } catch {
          unreadable += 1;
        }
        if (resealed !== null) {
          const result = await this.db
            .updateTable('projects')
            .set({ forge_credentials: resealed })
            .where('id', '=', row.id)
            .where('forge_credentials', '=', row.legacy)
            .executeTakeFirst();
          upgraded += Number(result.numUpdatedRows);
        }
      }
      // Done with, or no longer what the row holds: either way it is never upgraded again.
      if (row.current !== row.legacy || (await this.isUpgraded(row.id))) {
        await this.db.deleteFrom('legacy_forge_credentials').where('project_id', '=', row.id).execute();
      }
    }
    return { upgraded, unreadable };
  }

  private async isUpgraded(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('projects').select('forge_credentials').where('id', '=', id).executeTakeFirst();
    return row === undefined || row.forge_credentials === null || !this.secretBox.isLegacy(row.forge_credentials);
  }

  private seal(id: string, credentials: ForgeCredentials | null): string | null {
    return credentials === null ? null : this.secretBox.seal(JSON.stringify(credentials), id);
  }
}
