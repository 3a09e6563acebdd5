import postgres from "postgres";
import { E2E } from "./env";

/** Direct reads of the e2e database, to check what the app wrote. */
export function e2eSql() {
  return postgres(E2E.databaseUrl, { max: 2, onnotice: () => {} });
}
