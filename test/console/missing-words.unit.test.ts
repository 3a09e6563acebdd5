import { describe, expect, it } from "vitest";
import { describeMissing } from "@/components/missing-words";

describe("what a 404 in the console says", () => {
  it("[not found] names the event, entity or source the address asked for, and what to search", () => {
    expect(describeMissing("/events/stripe/evt_x")).toMatchObject({ title: "No event stripe/evt_x", query: "evt_x" });
    // An id the page encoded (a slash, a space) reads as the id.
    expect(describeMissing("/events/shopify/abc%2Fdef%20g:orders%2Fpaid")).toMatchObject({
      title: "No event shopify/abc/def g:orders/paid",
      query: "abc/def g:orders/paid",
    });
    expect(describeMissing("/entities/stripe/subscription/sub_1")).toMatchObject({
      title: "No subscription sub_1 from stripe",
      query: "sub_1",
    });
    expect(describeMissing("/sources/shop-eu")).toMatchObject({ title: "No source shop-eu" });
    expect(describeMissing("/sources/shop-eu").query).toBeUndefined();
  });

  it("[not found] any other address is a page that does not exist, an undecodable escape kept as sent", () => {
    expect(describeMissing("/nowhere/at/all")).toMatchObject({ title: "No page at /nowhere/at/all" });
    expect(describeMissing("/events")).toMatchObject({ title: "No page at /events" });
    expect(describeMissing("/x%zz")).toMatchObject({ title: "No page at /x%zz" });
  });
});
