import postgres from "postgres";
import { E2E } from "./env";

export default async function teardown() {
  const admin = postgres(E2E.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${E2E.databaseName} with (force)`);
  await admin.end();
}
