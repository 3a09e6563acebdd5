import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { github } from "@/lib/providers/github";
import { githubIssuesOpened, githubPullRequestEvent } from "@/test/fixtures/github";
import { signGithub, TEST_SECRETS, type Delivery } from "@/test/sign";

const NOW = 1_712_917_200;
const SECRET = TEST_SECRETS.github;
const OLD = "github-old-secret";
const NEW = "github-new-secret";
const STRANGER = "github-someone-elses-secret";
const DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
const body = JSON.stringify(githubIssuesOpened());

function verify(d: Delivery, secrets: string[] = [SECRET], now = NOW) {
  return github.verify({
    rawBody: Buffer.from(d.body),
    headers: new Headers(d.headers),
    secrets,
    toleranceSeconds: 300,
    now,
  });
}

function withSignature(header: string): Delivery {
  return { body, headers: { "content-type": "application/json", "x-hub-signature-256": header } };
}

function tamperOneByte(text: string): string {
  const i = text.indexOf('"opened"') + 1;
  return `${text.slice(0, i)}O${text.slice(i + 1)}`;
}

describe("github verify", () => {
  it("[github] a delivery signed with @octokit/webhooks-methods sign verifies", async () => {
    expect(verify(await signGithub(body, SECRET))).toEqual({ ok: true });
  });

  it("[github] a signed delivery passes both octokit's verify and our verifier", async () => {
    const d = await signGithub(body, SECRET);
    expect(await octokitVerify(SECRET, d.body, d.headers["x-hub-signature-256"] ?? "")).toBe(true);
    expect(verify(d)).toEqual({ ok: true });
  });

  it("[github] a tampered body is refused by octokit's verify and by our verifier alike", async () => {
    const d = await signGithub(body, SECRET);
    const tampered = tamperOneByte(d.body);
    expect(await octokitVerify(SECRET, tampered, d.headers["x-hub-signature-256"] ?? "")).toBe(false);
    expect(verify({ ...d, body: tampered })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[github] a signature made by octokit's signer is byte-for-byte the header we accept", async () => {
    const signature = await octokitSign(SECRET, body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(withSignature(signature))).toEqual({ ok: true });
  });

  it("[github] a signature is accepted whatever the clock says: GitHub signs no timestamp", async () => {
    const d = await signGithub(body, SECRET);
    expect(verify(d, [SECRET], NOW + 86_400 * 365)).toEqual({ ok: true });
  });

  it("[github] during rotation a delivery signed with the old or the new secret verifies", async () => {
    expect(verify(await signGithub(body, OLD), [OLD, NEW])).toEqual({ ok: true });
    expect(verify(await signGithub(body, NEW), [OLD, NEW])).toEqual({ ok: true });
  });

  it("[github] during rotation a delivery signed with a third secret is refused as a signature mismatch", async () => {
    expect(verify(await signGithub(body, STRANGER), [OLD, NEW])).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[github] a body with one byte changed is refused", async () => {
    const d = await signGithub(body, SECRET);
    expect(verify({ ...d, body: tamperOneByte(d.body) })).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[github] a delivery signed with the wrong secret is refused", async () => {
    expect(verify(await signGithub(body, STRANGER))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });

  it("[github] a delivery without X-Hub-Signature-256 is refused naming the header", () => {
    expect(verify({ body, headers: { "content-type": "application/json" } })).toEqual({
      ok: false,
      reason: "missing X-Hub-Signature-256 header",
      refusal: "bad_signature",
    });
  });

  it.each([
    "garbage",
    "sha256=",
    "sha256=zz",
    "sha256=abc",
    "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6",
    "SHA256=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  ])("[github] a malformed X-Hub-Signature-256 %j is refused without throwing", (header) => {
    expect(verify(withSignature(header))).toEqual({
      ok: false,
      reason: "malformed X-Hub-Signature-256 header (want sha256=<hex>)",
      refusal: "bad_signature",
    });
  });

  it("[github] a well-formed signature of the wrong length is a mismatch, not a crash", () => {
    expect(verify(withSignature("sha256=abcd"))).toEqual({
      ok: false,
      reason: "signature mismatch",
      refusal: "bad_signature",
    });
  });
});

describe("github describe", () => {
  const headersFor = (event: string, delivery: string | null = DELIVERY) => {
    const h = new Headers({ "x-github-event": event });
    if (delivery) h.set("x-github-delivery", delivery);
    return h;
  };

  it("[github] issues/opened is keyed by X-GitHub-Delivery, typed issues.opened, and names the issue without a version", () => {
    const payload = githubIssuesOpened({ issueId: 444500041 });
    expect(github.describe(payload, headersFor("issues"))).toStrictEqual({
      ok: true,
      event: { eventId: DELIVERY, eventType: "issues.opened", entity: { type: "issue", id: "444500041" } },
    });
  });

  it("[github] a pull_request event names the pull request, not the repository", () => {
    const payload = githubPullRequestEvent({ action: "synchronize", pullRequestId: 279147437 });
    expect(github.describe(payload, headersFor("pull_request"))).toStrictEqual({
      ok: true,
      event: {
        eventId: DELIVERY,
        eventType: "pull_request.synchronize",
        entity: { type: "pull_request", id: "279147437" },
      },
    });
  });

  it("[github] an event without an action (ping) is typed by X-GitHub-Event alone", () => {
    const payload = { zen: "Design for failure.", hook_id: 109948940, repository: { id: 186853002 } };
    expect(github.describe(payload, headersFor("ping"))).toStrictEqual({
      ok: true,
      event: { eventId: DELIVERY, eventType: "ping", entity: { type: "repository", id: "186853002" } },
    });
  });

  it("[github] a delivery without X-GitHub-Delivery cannot be described and says which header is missing", () => {
    expect(github.describe(githubIssuesOpened(), headersFor("issues", null))).toEqual({
      ok: false,
      reason: "missing event id (X-GitHub-Delivery header)",
    });
  });

  it("[github] a delivery without X-GitHub-Event cannot be described and says which header is missing", () => {
    const headers = new Headers({ "x-github-delivery": DELIVERY });
    expect(github.describe(githubIssuesOpened(), headers)).toEqual({
      ok: false,
      reason: "missing event type (X-GitHub-Event header)",
    });
  });

  it("[github] signGithub sends the delivery id and event name that describe reads", async () => {
    const d = await signGithub(body, SECRET, { delivery: DELIVERY, event: "issues" });
    const described = github.describe(JSON.parse(d.body), new Headers(d.headers));
    expect(described.ok && described.event.eventId).toBe(DELIVERY);
    expect(described.ok && described.event.eventType).toBe("issues.opened");
  });
});
