import type { ReplaySource } from "@/db/schema/replay";
import type { HttpOptions } from "./http";

export interface ReplayWindow {
  since: Date;
  until: Date;
  /** Event types to keep (GitHub: `issues` or `issues.opened`); empty keeps all. */
  types: readonly string[];
}

/** An event as the provider's API gives it back, with the headers describe() reads. */
export interface LoadedEvent {
  payload: unknown;
  rawBody: string;
  headers: Record<string, string>;
}

/** One event in the window, its id known from the listing; GitHub fetches the payload only when asked. */
export interface ReplayItem {
  eventId: string;
  /** What the listing says of it without loading the payload: a preview's sample shows these. */
  type?: string;
  at?: Date;
  /** undefined: the provider no longer has it (counted as failed). */
  load(): Promise<LoadedEvent | undefined>;
  /** GitHub only: ask the provider to deliver it to the endpoint again. */
  redeliver?(): Promise<void>;
}

export interface ReplayPage {
  items: ReplayItem[];
  /** Cursor of the following page; undefined when this was the last page of the window. */
  next: string | undefined;
}

export interface ReplayLister {
  source: ReplaySource;
  /** Fetch the page at `cursor` (undefined: the first). Throws when it keeps failing. */
  page(cursor: string | undefined): Promise<ReplayPage>;
}

/** Where each provider's API lives and how to authenticate; built from the environment by the hosts. */
export interface ReplayApiConfig {
  stripe: { base: string; key: string | undefined };
  github: { base: string; token: string | undefined; hook: string | undefined };
  paddle: { base: string; key: string | undefined };
}

export interface ListerDeps {
  http: HttpOptions;
  pageSize?: number;
}

export class ReplayConfigError extends Error {
  override name = "ReplayConfigError";
}

export const inWindow = (at: Date, w: ReplayWindow) =>
  at.getTime() >= w.since.getTime() && at.getTime() <= w.until.getTime();
