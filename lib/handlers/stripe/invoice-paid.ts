import { sql } from "drizzle-orm";
import { customerTotal } from "@/db/schema";
import { formatMinor } from "@/lib/format/money";
import { integerAt, objectAt, stringAt } from "../read";
import { defineDeltaHandler } from "../types";

interface Paid {
  customerId: string;
  currency: string;
  amountPaid: number;
}

/**
 * invoice.paid adds amount_paid to the customer's running total. A delta has no version to compare:
 * applying it twice would double the total, so it is exactly-once only because the event id is claimed once.
 */
export const stripeInvoicePaid = defineDeltaHandler<Paid>({
  source: "stripe",
  types: ["invoice.paid"],
  read({ payload }) {
    const invoice = objectAt(payload, "data.object");
    const customer = invoice.customer;
    const customerId =
      typeof customer === "object" && customer !== null
        ? stringAt(customer as Record<string, unknown>, "id", "data.object.customer")
        : stringAt(invoice, "customer", "data.object");
    const input = {
      customerId,
      currency: stringAt(invoice, "currency", "data.object"),
      amountPaid: integerAt(invoice, "amount_paid", "data.object"),
    };
    return { entity: { type: "customer", id: customerId }, input };
  },
  async apply(tx, { customerId, currency, amountPaid }) {
    const [after] = await tx
      .insert(customerTotal)
      .values({ source: "stripe", customerId, currency, amountPaid, invoiceCount: 1 })
      .onConflictDoUpdate({
        target: [customerTotal.source, customerTotal.customerId, customerTotal.currency],
        set: {
          amountPaid: sql`${customerTotal.amountPaid} + excluded.amount_paid`,
          invoiceCount: sql`${customerTotal.invoiceCount} + 1`,
          updatedAt: new Date(),
        },
      })
      .returning({ amountPaid: customerTotal.amountPaid });
    const to = after?.amountPaid ?? amountPaid;
    // Stored in minor units (cents); the timeline says it as a person reads it, with its currency.
    return { amount_paid: { from: formatMinor(to - amountPaid, currency), to: formatMinor(to, currency) } };
  },
});
