export {
  backlogGaugesSql,
  createDbGaugeReader,
  deadFractionSql,
  settledCountSql,
  DEAD_EXACT_CAP,
  SETTLED_EXACT_BELOW,
  type DbGaugeOptions,
  type DbGaugeReader,
  type DbGauges,
  type GaugeQuery,
} from "./db-gauges";
export {
  attemptOutcomeLabel,
  createLedgerMetrics,
  deliveryOutcomeLabel,
  getMetrics,
  type LedgerMetrics,
} from "./registry";
export { scrapeAllowed } from "./scrape";
