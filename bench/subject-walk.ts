/**
 * `npm run bench:subjects [-- --n 20000]`: what the two payload walks cost per event, next to a JSON.parse of the
 * same body in the same run (the ratio is what to compare across machines). extractSubjectIds runs at every claim;
 * extractSubjectTerms at every settle (the search directory). Provider sample payloads from lib/samples.
 */
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { extractSubjectTerms } from "@/lib/ledger/subject-terms";
import { githubPullRequestEvent } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/lib/samples/stripe";

const nArg = process.argv.indexOf("--n");
const N = nArg > 0 ? Number(process.argv[nArg + 1]) : 20_000;
if (!Number.isInteger(N) || N <= 0) throw new Error("--n wants a positive integer");
const ROUNDS = 5;

const samples: [string, unknown][] = [
  ["stripe customer.subscription.updated", stripeSubscriptionEvent()],
  ["stripe invoice.paid", stripeInvoicePaidEvent()],
  ["github pull_request", githubPullRequestEvent()],
  ["shopify orders/create", shopifyOrder()],
  ["paddle subscription.updated", paddleSubscriptionEvent()],
];

/** Median µs per call of `fn` over ROUNDS rounds of N calls. */
function time(fn: (i: number) => unknown): number {
  const rounds: number[] = [];
  let sink = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    for (let i = 0; i < N; i++) sink += fn(i) ? 1 : 0;
    rounds.push(((performance.now() - t) * 1000) / N);
  }
  if (sink < 0) console.log(sink); // keeps the calls from being optimised away
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

console.log(`node ${process.version}; ${N.toLocaleString("en-US")} calls per round, median of ${ROUNDS} rounds\n`);
console.log("| payload | bytes | JSON.parse µs | subject ids µs (× parse) | directory terms µs (× parse) |");
console.log("|---|---:|---:|---:|---:|");
for (const [name, payload] of samples) {
  const body = JSON.stringify(payload);
  // Fresh objects per call, as the worker has: one parsed copy per event.
  const parsed = Array.from({ length: Math.min(N, 2_000) }, () => JSON.parse(body) as unknown);
  const at = (i: number) => parsed[i % parsed.length];
  const parse = time(() => JSON.parse(body));
  const ids = time((i) => extractSubjectIds(at(i)).length);
  const terms = time((i) => extractSubjectTerms(at(i)).length);
  const x = (v: number) => `${v.toFixed(1)} (${(v / parse).toFixed(2)}×)`;
  console.log(`| ${name} | ${body.length} | ${parse.toFixed(1)} | ${x(ids)} | ${x(terms)} |`);
}
