/** A count with its noun agreeing: "1 attempt", "2 attempts", "1 entity", "3 entities" (`many` when not +s). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? word : many}`;
}

// Written with a vowel, said with a consonant ("a user", "a euro", "a one-off"), and the reverse ("an hour").
const CONSONANT_SOUND = /^(?:u(?:s|n[iy]|r[aeiou]|t[ie]|k|bi)|eu|ew|one\b|once\b)/i;
const VOWEL_SOUND = /^(?:hour|honest|honou?r|heir)/i;

/** The word with "a" or "an" before it, as it is said: "an invoice", "a customer"; capital for a sentence's start. */
export function withArticle(word: string, opts: { capital?: boolean } = {}): string {
  const an = VOWEL_SOUND.test(word) || (/^[aeiou]/i.test(word) && !CONSONANT_SOUND.test(word));
  const article = an ? "an" : "a";
  return `${opts.capital ? article[0]!.toUpperCase() + article.slice(1) : article} ${word}`;
}
