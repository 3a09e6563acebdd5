import postgres from "postgres";
import { inject } from "vitest";

/**
 * Each test worker slot gets its own database, cloned from the run's migrated template, so files run in
 * parallel; files that share a slot run one after another and setupTestDb empties the tables per test.
 */
const template = inject("templateDatabase");
const slot = process.env.VITEST_POOL_ID ?? "1";
const name = `${template}_w${slot}`;
const url = new URL(inject("adminUrl"));
url.pathname = `/${name}`;

const admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {}, connect_timeout: 5 });
try {
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (!exists) {
    // 55006: another slot is copying the same template this instant; copying is quick, so try again.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== "55006" || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
} finally {
  await admin.end();
}
process.env.LEDGER_TEST_DATABASE_URL = url.toString();
