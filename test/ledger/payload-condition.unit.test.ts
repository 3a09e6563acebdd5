import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/errors";
import { conditionText, parseCondition } from "@/lib/console/payload-condition";

const refused = (text: string) => {
  try {
    parseCondition(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe("where");
    return (err as Error).message;
  }
  throw new Error(`"${text}" parsed`);
};

describe("the payload condition parser", () => {
  it("[console] reads paths of keys, indexes and quoted keys, each operator, and bare or quoted values", () => {
    expect(parseCondition("data.object.status = past_due")).toEqual({
      path: ["data", "object", "status"],
      op: "=",
      value: "past_due",
    });
    expect(parseCondition("  repository.full_name~acme/  ")).toEqual({
      path: ["repository", "full_name"],
      op: "~",
      value: "acme/",
    });
    expect(parseCondition("items[0].price-id != a b  c")).toEqual({
      path: ["items", "0", "price-id"],
      op: "!=",
      value: "a b  c",
    });
    expect(parseCondition('reactions["+1"] = "  0 "')).toEqual({ path: ["reactions", "+1"], op: "=", value: "  0 " });
    expect(parseCondition('a = ""')).toEqual({ path: ["a"], op: "=", value: "" });
    expect(parseCondition("data.object exists")).toEqual({ path: ["data", "object"], op: "exists" });
    expect(parseCondition("data.object !exists")).toEqual({ path: ["data", "object"], op: "!exists" });
    expect(conditionText(parseCondition('reactions["+1"][2].x = 1'))).toBe('reactions["+1"][2].x = "1"');
  });

  it("[console] refuses in words: prototype keys, a missing operator or value, a stray character, long input", () => {
    for (const key of ["__proto__", "constructor", "prototype"])
      expect(refused(`data.${key}.x = 1`)).toBe(`payload condition: "${key}" cannot be part of a path`);
    expect(refused('["__proto__"] exists')).toBe('payload condition: "__proto__" cannot be part of a path');
    expect(refused("")).toMatch(/^payload condition: write a path, an operator and a value/);
    expect(refused("data.object.status")).toMatch(/"data\.object\.status" needs an operator and a value/);
    expect(refused("data.object.status =")).toBe(
      'payload condition: give a value after = (for an empty text, write "")',
    );
    expect(refused("status > 3")).toMatch(/^payload condition: "> 3" is not an operator/);
    expect(refused("data..x = 1")).toBe('payload condition: after "data." comes a key, not ".x = 1"');
    expect(refused("[0] = 1")).toBe("payload condition: a path starts with a key, not an index");
    expect(refused("1abc = 1")).toMatch(/must start with a key/);
    expect(refused("a[100000] = 1")).toBe("payload condition: [100000] is past the largest index, 99999");
    expect(refused("a exists now")).toBe('payload condition: exists takes no value, but "now" follows it');
    expect(refused('a = "unterminated')).toMatch(/is not one quoted value/);
    expect(refused(`a = "x" "y"`)).toMatch(/is not one quoted value/);
    expect(refused(`a = x\u0000y`)).toBe("payload condition: the value contains U+0000 (NUL)");
    expect(refused(`a = ${"x".repeat(600)}`)).toBe("payload condition: it is longer than 600 characters");
    expect(refused(`${Array.from({ length: 40 }, () => "a").join(".")} exists`)).toBe(
      "payload condition: a path has at most 32 parts",
    );
  });
});
