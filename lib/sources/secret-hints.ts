import { isProviderKind, type ProviderKind } from "@/lib/providers/types";

export interface SecretHint {
  /** Who makes the secret: the provider (paste it), you (generate one, give it to the provider), or either. */
  issuedBy: "provider" | "you" | "either";
  /** Where it comes from, in one or two sentences, for the add-source and rotate forms. */
  text: string;
}

// A secret the provider issues cannot be generated here: a generated one only signs this console's test events.
const PROVIDER_ISSUED = "Left blank, one is generated that only this console's test events use.";

/** Where each kind's signing secret comes from. */
export const SECRET_HINTS: Record<ProviderKind, SecretHint> = {
  stripe: {
    issuedBy: "provider",
    text:
      "Stripe issues it: Dashboard → Developers → Webhooks → this endpoint → Signing secret (whsec_…). Paste it " +
      `here. ${PROVIDER_ISSUED}`,
  },
  github: {
    issuedBy: "you",
    text:
      "You choose it: leave blank to generate one (shown once), then paste it into the repository's Settings → " +
      "Webhooks → Secret (or the organization's, or the GitHub App's webhook secret).",
  },
  shopify: {
    issuedBy: "provider",
    text:
      "Shopify issues it: the app's client secret (Partner Dashboard → Apps → your app → Client credentials), or " +
      `the webhook signing key shown under Settings → Notifications → Webhooks for a store's own webhooks. ${PROVIDER_ISSUED}`,
  },
  paddle: {
    issuedBy: "provider",
    text:
      "Paddle issues it: Developer tools → Notifications → the notification destination → Secret key " +
      `(pdl_ntfset_…). Paste it here. ${PROVIDER_ISSUED}`,
  },
  slack: {
    issuedBy: "provider",
    text: `Slack issues it: api.slack.com/apps → your app → Basic Information → Signing Secret. Paste it here. ${PROVIDER_ISSUED}`,
  },
  standard: {
    issuedBy: "either",
    text:
      "The sender issues a whsec_… secret with the endpoint (paste it), or you choose one: leave blank to " +
      "generate a whsec_ secret (shown once) and give it to the sender.",
  },
  generic: {
    issuedBy: "either",
    text:
      "Where the sender's documentation says its signing secret is: paste it. If the sender lets you choose one, " +
      "leave blank to generate it (shown once) and give it to the sender.",
  },
};

/** A source's hint by its kind; a kind this build does not know is configured like a generic one. */
export const secretHint = (kind: string): SecretHint => SECRET_HINTS[isProviderKind(kind) ? kind : "generic"];
