import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../db/database.js';

/** A sender's row after an admission attempt. */
export interface SenderDay {
  /** How many (address, user agent) pairs the sender has had admitted this day. */
  identities: number;
  /** Their keyed hashes, decimal. */
  visitors: string[];
}

// One statement decides and records: the pair is appended unless it is there already or
// the sender is at its limit, and the row comes back either way. Both dialects evaluate
// SET against the row as it was; PostgreSQL's upsert locks the row, so two processes
// admitting for one sender at once take turns and the limit is exact.
const ADMIT_SQLITE = `insert into analytics_beacon_senders as s (day, project_id, sender, identities, visitors)
  values (@day, @project, @sender, 1, ',' || @visitor || ',')
  on conflict (day, project_id, sender) do update set
    identities = s.identities + (instr(s.visitors, ',' || @visitor || ',') = 0 and s.identities < @limit),
    visitors = case when instr(s.visitors, ',' || @visitor || ',') = 0 and s.identities < @limit then s.visitors || @visitor || ',' else s.visitors end
  returning identities, visitors`;

const ADMIT_POSTGRES = `insert into analytics_beacon_senders as s (day, project_id, sender, identities, visitors)
  values ($1::integer, $2::text, $3::bigint, 1, ',' || $4::text || ',')
  on conflict (day, project_id, sender) do update set
    identities = s.identities + case when strpos(s.visitors, ',' || $4::text || ',') = 0 and s.identities < $5::integer then 1 else 0 end,
    visitors = case when strpos(s.visitors, ',' || $4::text || ',') = 0 and s.identities < $5::integer then s.visitors || $4::text || ',' else s.visitors end
  returning identities, visitors`;

const FORGET = 'delete from analytics_beacon_senders where day < ';

function senderDay(row: { identities: number | string; visitors: string }): SenderDay {
  return { identities: Number(row.identities), visitors: row.visitors.split(',').filter((visitor) => visitor !== '') };
}

/** The new-visitor cap's table (migration 006), one statement per call, on either backend. */
export class BeaconSenderStore {
  private sqliteAdmit: BetterSqlite3.Statement | undefined;

  constructor(private readonly database: Database) {}

  /** Records `visitor` for the sender's day unless the sender already has `limit` others; returns the row. */
  async admit(day: number, projectId: string, sender: bigint, visitor: string, limit: number): Promise<SenderDay> {
    const raw = this.database.raw;
    if (raw.dialect === 'postgres') {
      const { rows } = await raw.pool.query<{ identities: number; visitors: string }>({
        name: 'docwright-beacon-admit',
        text: ADMIT_POSTGRES,
        values: [day, projectId, sender.toString(), visitor, limit],
      });
      return senderDay(rows[0]!);
    }
    // Under Kysely's connection lock, like every SQLite write: never inside another
    // caller's open transaction on the shared connection.
    return this.database.db.connection().execute(async () => {
      this.sqliteAdmit ??= raw.connection.prepare(ADMIT_SQLITE);
      return senderDay(this.sqliteAdmit.get({ day, project: projectId, sender, visitor, limit }) as { identities: number; visitors: string });
    });
  }

  /** Deletes the rows of days before `day`; returns how many. */
  async forgetBefore(day: number): Promise<number> {
    const raw = this.database.raw;
    if (raw.dialect === 'postgres') return (await raw.pool.query(`${FORGET}$1`, [day])).rowCount ?? 0;
    return this.database.db.connection().execute(async () => raw.connection.prepare(`${FORGET}?`).run(day).changes);
  }
}
