import { standardSecretProblem } from "@/lib/providers/standard";
import { stripeSecretProblem } from "@/lib/providers/stripe";
import type { ProviderKind } from "@/lib/providers/types";

// Secrets a person chooses (GitHub) or copies from a dashboard: shorter than this is a truncated paste.
const MIN_FREE_FORM = 8;
const MAX_SECRET = 512;
// Printable ASCII without the comma, which separates secrets in a variable.
const FREE_FORM = /^[\x21-\x2b\x2d-\x7e]+$/;

const LABELS: Record<ProviderKind, string> = {
  stripe: "Stripe signing secret",
  github: "GitHub webhook secret",
  shopify: "Shopify app's client secret",
  paddle: "Paddle notification secret key",
  slack: "Slack signing secret",
  standard: "Standard Webhooks secret",
  generic: "signing secret",
};

/**
 * Why `secret` cannot be a secret of this kind, or undefined: checked wherever one is added (the console,
 * SOURCES_FILE, the legacy variables), so a pasted secret that no real delivery could match is refused at
 * once, with the format it should have. The message never repeats the secret.
 */
export function secretFormatProblem(kind: ProviderKind, secret: string): string | undefined {
  if (secret.length > MAX_SECRET) return `a ${LABELS[kind]} is at most ${MAX_SECRET} characters`;
  if (kind === "stripe") return stripeSecretProblem(secret);
  if (kind === "standard") return standardSecretProblem(secret);
  if (/[\s,]/.test(secret)) return `a ${LABELS[kind]} has no spaces or commas`;
  if (!FREE_FORM.test(secret)) return `a ${LABELS[kind]} is printable ASCII (letters, digits, punctuation)`;
  if (secret.length < MIN_FREE_FORM) return `a ${LABELS[kind]} is at least ${MIN_FREE_FORM} characters`;
  return undefined;
}
