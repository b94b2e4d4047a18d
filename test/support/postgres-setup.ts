// Global setup: one PostgreSQL server for the test run (scripts/postgres-server.ts), with a template database migrated
// once; each test server on PostgreSQL gets a database of its own, cloned from the template (test/support/databases.ts).
// A run without PostgreSQL (TEST_POSTGRES=off, as databases.ts reads it) starts none.
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { startPostgres } from '../../scripts/postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The address of database `<name>` is this with `{database}` replaced; empty when no server runs. */
    postgresUrl: string;
  }
}

/** The migrated database the tests' databases are cloned from. */
export const TEMPLATE_DATABASE = 'docs_template';

export default async function setup(project: TestProject) {
  if (process.env.TEST_POSTGRES === 'off') {
    project.provide('postgresUrl', '');
    return;
  }
  const server = startPostgres({ port: 5433 + Math.floor(Math.random() * 1000) });
  try {
    const admin = new pg.Client({ connectionString: server.url('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    await admin.end();
    const store = await PostgresStore.open({ url: server.url(TEMPLATE_DATABASE) });
    await store.close();
  } catch (error) {
    server.stop();
    throw error;
  }
  project.provide('postgresUrl', server.url('{database}'));
  return () => server.stop();
}
