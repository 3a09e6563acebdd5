import { sql, type SQL } from "drizzle-orm";

/**
 * `e` (webhook_event_state) joined to the keys of the CTE `cte`, with those keys also as index conditions on
 * e's primary key, arrays built from the CTE at run time. Joined plainly, a batch of a few hundred keys was
 * matched by hashing the whole table whenever it held a few thousand rows (the planner prices a probe per key
 * as a random read from disk): a lease spent most of its time hashing the state table (bench:worker), and the
 * fence and the settle did the same. An array the planner cannot see the size of keeps it on the index.
 */
export function keyedTo(cte: string): SQL {
  if (!/^[a-z_]+$/.test(cte)) throw new Error(`not a CTE name: ${cte}`);
  return sql.raw(`e.source = ${cte}.source and e.event_id = ${cte}.event_id
      and e.source = any(array(select distinct source from ${cte}))
      and e.event_id = any(array(select event_id from ${cte}))`);
}
