import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOCS = ["README.md", ...readdirSync(path.join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);
const LINK = /\]\(([^)\s]+)\)/g;

describe("[docs] links in the README and docs/ stay inside the repository", () => {
  for (const doc of DOCS) {
    it(`${doc}: every relative link names a file of this repository`, () => {
      const text = readFileSync(path.join(ROOT, doc), "utf8");
      const broken: string[] = [];
      for (const [, target] of text.matchAll(LINK)) {
        if (!target || /^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
        const file = path.resolve(path.dirname(path.join(ROOT, doc)), target.split("#")[0] ?? "");
        if (!file.startsWith(ROOT + path.sep) || !existsSync(file)) broken.push(target);
      }
      expect(broken).toEqual([]);
    });
  }
});
