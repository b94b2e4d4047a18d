// Databases of their own for the tests on PostgreSQL: each a clone of the migrated template (postgres-setup.ts),
// dropped when the test is done with it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * Whether this run has a PostgreSQL server: every run but the quick tier's (vitest.quick.config.ts sets
 * TEST_POSTGRES=off), whose tests of both engines then run on SQLite alone.
 */
export const postgresRuns = (): boolean => process.env.TEST_POSTGRES !== 'off';

/** The engines a test of both engines runs on in this run. */
export const runEngines = (): ('sqlite' | 'postgres')[] => (postgresRuns() ? ['sqlite', 'postgres'] : ['sqlite']);

/** Which engine the test servers of this run use: TEST_ENGINE=postgres, or SQLite. */
export const testEngine = (): 'sqlite' | 'postgres' => (process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite');

/** The address of database `name` on the run's PostgreSQL server. */
export function postgresUrl(name: string): string {
  const template = inject('postgresUrl');
  if (!template) throw new Error('no PostgreSQL server runs for these tests (test/support/postgres-setup.ts): a test file that needs one declares `// @needs postgres` in its header (test/support/needs.ts), which leaves it out of the quick tier');
  return template.replace('{database}', name);
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A new database, migrated (a clone of the template); `empty` makes one without the schema instead, `template` a clone
 * of another database (which nothing may be connected to).
 */
export async function createTestDatabase(options: { empty?: boolean; template?: string } = {}): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin(async (client) => {
    // Clones of one template made at once may find it busy for an instant: try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${options.template ?? (options.empty ? 'template0' : 'docs_template')}`);
        return;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  });
  return {
    name,
    url: postgresUrl(name),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
