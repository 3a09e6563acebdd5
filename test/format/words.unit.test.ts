import { describe, expect, it } from "vitest";
import { plural, withArticle } from "@/lib/format/words";

describe("words for counts and things", () => {
  it("[format] a count agrees with its noun: 1 attempt, 2 attempts, 0 keys, 1 entity, 3 entities", () => {
    expect(plural(1, "attempt")).toBe("1 attempt");
    expect(plural(2, "attempt")).toBe("2 attempts");
    expect(plural(0, "key")).toBe("0 keys");
    expect(plural(1, "item")).toBe("1 item");
    expect(plural(1, "entity", "entities")).toBe("1 entity");
    expect(plural(3, "entity", "entities")).toBe("3 entities");
    expect(plural(1234, "delivery", "deliveries")).toBe("1,234 deliveries");
  });

  it('[format] an article agrees with the sound: "an invoice", "an order", "a customer", "a user", "an hour"', () => {
    expect(withArticle("invoice")).toBe("an invoice");
    expect(withArticle("order")).toBe("an order");
    expect(withArticle("customer")).toBe("a customer");
    expect(withArticle("subscription")).toBe("a subscription");
    expect(withArticle("user")).toBe("a user");
    expect(withArticle("euro account")).toBe("a euro account");
    expect(withArticle("hour")).toBe("an hour");
    expect(withArticle("invoice", { capital: true })).toBe("An invoice");
    expect(withArticle("customer", { capital: true })).toBe("A customer");
  });
});
