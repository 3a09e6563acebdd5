export {
  backlogGaugesSql,
  createDbGaugeReader,
  deadFractionSql,
  settledCountSql,
  DEAD_EXACT_CAP,
  GAUGE_STATUSES,
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
  REFUSAL_LABELS,
  type LedgerMetrics,
} from "./registry";
export { scrapeAllowed } from "./scrape";
