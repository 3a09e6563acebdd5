import { generic } from "./generic";
import { github } from "./github";
import { paddle } from "./paddle";
import { shopify } from "./shopify";
import { slack } from "./slack";
import { standard } from "./standard";
import { stripe } from "./stripe";
import type { Provider, ProviderKind } from "./types";

export * from "./types";

export const PROVIDERS: Record<ProviderKind, Provider> = { stripe, github, shopify, paddle, slack, standard, generic };
