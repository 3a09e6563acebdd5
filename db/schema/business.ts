import { bigint, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

/** Mutable, one row per subscription (Stripe and Paddle); `version` is the newest event applied. */
export const subscription = pgTable(
  "subscription",
  {
    source: text("source").notNull(),
    externalId: text("external_id").notNull(),
    customerId: text("customer_id"),
    plan: text("plan"),
    status: text("status").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    updatedByEvent: text("updated_by_event").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.externalId] })],
);
export type Subscription = typeof subscription.$inferSelect;

/** Mutable, one row per Shopify order; versioned by the order's updated_at (microseconds). */
export const order = pgTable(
  "order",
  {
    source: text("source").notNull(),
    externalId: text("external_id").notNull(),
    name: text("name"),
    email: text("email"),
    financialStatus: text("financial_status"),
    fulfillmentStatus: text("fulfillment_status"),
    totalPrice: text("total_price"),
    currency: text("currency"),
    cancelledAt: tstz("cancelled_at"),
    version: bigint("version", { mode: "number" }).notNull(),
    updatedByEvent: text("updated_by_event").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.externalId] })],
);
export type Order = typeof order.$inferSelect;

/** The delta example: running total of paid invoices per customer. Exactly-once rests on the claim alone. */
export const customerTotal = pgTable(
  "customer_total",
  {
    source: text("source").notNull(),
    customerId: text("customer_id").notNull(),
    currency: text("currency").notNull(),
    amountPaid: bigint("amount_paid", { mode: "number" }).notNull(),
    invoiceCount: integer("invoice_count").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.customerId, t.currency] })],
);
export type CustomerTotal = typeof customerTotal.$inferSelect;
