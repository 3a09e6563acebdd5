import type { ProviderKind } from "./types";

/** A page in the provider's own dashboard about something an event names. */
export interface DashboardLink {
  label: string;
  href: string;
}

export interface DashboardInput {
  provider: ProviderKind | undefined;
  /** The event's payload (for an entity page: the newest event that names it). */
  payload: unknown;
  /** The stored headers of that event (Shopify names the shop in one). */
  headers: Record<string, string>;
  /** The entity the page is about: its link comes first. */
  entity?: { type: string; id: string } | null;
  /** Paddle's payloads do not say sandbox or live: the deploy's Paddle API base does (isPaddleSandbox). */
  paddleSandbox?: boolean;
}

// Every id below comes from a signed payload, but a payload is still outside data: an id is used only when it has
// its object's shape, and is encoded anyway, so a link can only ever be the provider's page for that id.
const STRIPE_ID = {
  customer: /^cus_[A-Za-z0-9]{1,250}$/,
  subscription: /^sub_[A-Za-z0-9]{1,250}$/,
  invoice: /^in_[A-Za-z0-9]{1,250}$/,
};
const STRIPE_PATH = { customer: "customers", subscription: "subscriptions", invoice: "invoices" } as const;
const STRIPE_WORD = { customer: "Customer", subscription: "Subscription", invoice: "Invoice" } as const;
type StripeKind = keyof typeof STRIPE_ID;
const SHOPIFY_ORDER_ID = /^[0-9]{1,20}$/;
const SHOPIFY_SHOP = /^([a-z0-9][a-z0-9-]{0,99})\.myshopify\.com$/;
const PADDLE_SUBSCRIPTION_ID = /^sub_[a-z0-9]{1,64}$/;
const GITHUB_OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const path = (id: string) => encodeURIComponent(id);

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

function stripe(input: DashboardInput): DashboardLink[] {
  const event = isObject(input.payload) ? input.payload : {};
  const data = isObject(event.data) ? event.data : {};
  const object = isObject(data.object) ? data.object : {};
  const found: [StripeKind, string | undefined][] = [];
  const type = str(object.object);
  if (input.entity && input.entity.type in STRIPE_ID) found.push([input.entity.type as StripeKind, input.entity.id]);
  if (type && type in STRIPE_ID) found.push([type as StripeKind, str(object.id)]);
  found.push(["subscription", str(object.subscription)], ["customer", str(object.customer)]);
  // Test-mode objects live under /test in the dashboard; a payload that does not say is taken as live.
  const base = event.livemode === false ? "https://dashboard.stripe.com/test" : "https://dashboard.stripe.com";
  const seen = new Set<string>();
  const links: DashboardLink[] = [];
  for (const [kind, id] of found) {
    if (!id || !STRIPE_ID[kind].test(id) || seen.has(id)) continue;
    seen.add(id);
    links.push({ label: `${STRIPE_WORD[kind]} ${id} in Stripe`, href: `${base}/${STRIPE_PATH[kind]}/${path(id)}` });
  }
  return links;
}

function shopify(input: DashboardInput): DashboardLink[] {
  const e = input.entity;
  const shop = SHOPIFY_SHOP.exec(
    (header(input.headers, "x-shopify-shop-domain") ?? header(input.headers, "shopify-shop-domain") ?? "")
      .trim()
      .toLowerCase(),
  )?.[1];
  if (!shop || e?.type !== "order" || !SHOPIFY_ORDER_ID.test(e.id)) return [];
  return [
    {
      label: `Order ${e.id} in Shopify admin`,
      href: `https://admin.shopify.com/store/${path(shop)}/orders/${path(e.id)}`,
    },
  ];
}

function paddle(input: DashboardInput): DashboardLink[] {
  const data = isObject(input.payload) && isObject(input.payload.data) ? input.payload.data : {};
  const ids = [input.entity?.type === "subscription" ? input.entity.id : undefined, str(data.subscription_id)];
  const id = ids.find((x) => x !== undefined && PADDLE_SUBSCRIPTION_ID.test(x));
  if (!id) return [];
  const host = input.paddleSandbox ? "sandbox-vendors.paddle.com" : "vendors.paddle.com";
  return [{ label: `Subscription ${id} in Paddle`, href: `https://${host}/subscriptions-v2/${path(id)}` }];
}

function github(input: DashboardInput): DashboardLink[] {
  const repo = isObject(input.payload) && isObject(input.payload.repository) ? input.payload.repository : {};
  let url: URL;
  try {
    url = new URL(str(repo.html_url) ?? "");
  } catch {
    return [];
  }
  // github.com, or GitHub Enterprise Cloud's own subdomains; the link is rebuilt from the checked parts only.
  const host = url.hostname === "github.com" || /^[a-z0-9-]{1,63}\.ghe\.com$/.test(url.hostname) ? url.hostname : "";
  const [owner = "", name = "", ...more] = url.pathname.split("/").filter(Boolean);
  const clean = url.protocol === "https:" && !url.port && !url.username && !url.password && more.length === 0;
  if (!host || !clean || !GITHUB_OWNER.test(owner) || !GITHUB_REPO.test(name)) return [];
  return [{ label: `Repository ${owner}/${name} on GitHub`, href: `https://${host}/${path(owner)}/${path(name)}` }];
}

/** Links to what the event (or entity) is about in the provider's dashboard; none where the provider has none. */
export function dashboardLinks(input: DashboardInput): DashboardLink[] {
  switch (input.provider) {
    case "stripe":
      return stripe(input);
    case "shopify":
      return shopify(input);
    case "paddle":
      return paddle(input);
    case "github":
      return github(input);
    default:
      return [];
  }
}

/** Paddle's sandbox answers on sandbox-api.paddle.com: a deploy pointed there is a sandbox deploy. */
export function isPaddleSandbox(apiBase: string): boolean {
  try {
    return new URL(apiBase).hostname === "sandbox-api.paddle.com";
  } catch {
    return false;
  }
}
