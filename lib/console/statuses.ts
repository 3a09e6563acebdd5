// The status list for UI code: a value import from lib, so app/ needs nothing from db/ but types.
export { EVENT_STATUSES, type EventStatus } from "@/db/schema/ledger";
