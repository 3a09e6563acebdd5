import type { Tx } from "@/db/client";
import type { ProviderKind } from "@/lib/providers/types";

/** What a handler sees of a leased ledger row. */
export interface HandlerEvent {
  /** The source's slug; the handler was chosen by the source's provider kind. */
  source: string;
  eventId: string;
  eventType: string;
  payload: unknown;
}

export type Changes = Record<string, { from: unknown; to: unknown }>;

export interface VersionedEntity {
  type: string;
  id: string;
  /** Strictly increasing per entity; equal or older is stale (docs/handlers.md). */
  version: number;
}

/**
 * The payload does not have what the handler needs: its message names the missing path. The worker
 * retries it like any failure (with backoff, then dead): it does not tell a permanent failure from a
 * transient one.
 */
export class HandlerInputError extends Error {
  override name = "HandlerInputError";
}

/**
 * A snapshot event carries the entity's whole state: `read` finds the entity, its version and the
 * state; `write` stores it. The framework runs the version guard and the timeline around `write`,
 * so `write` is only called when this event is strictly newer than anything applied before.
 */
export interface SnapshotHandler<State> {
  kind: "snapshot";
  source: ProviderKind;
  types: readonly string[];
  read(event: HandlerEvent): { entity: VersionedEntity; state: State };
  write(tx: Tx, state: State, ctx: { entity: VersionedEntity; event: HandlerEvent }): Promise<Changes>;
}

/** A delta event ("add N") has no version: the event-id claim alone makes it exactly-once. */
export interface DeltaHandler<Input> {
  kind: "delta";
  source: ProviderKind;
  types: readonly string[];
  read(event: HandlerEvent): { entity: { type: string; id: string }; input: Input };
  apply(tx: Tx, input: Input, ctx: { event: HandlerEvent }): Promise<Changes>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds handlers of any state type
export type Handler = SnapshotHandler<any> | DeltaHandler<any>;

export const defineSnapshotHandler = <S>(h: Omit<SnapshotHandler<S>, "kind">): SnapshotHandler<S> => ({
  kind: "snapshot",
  ...h,
});
export const defineDeltaHandler = <I>(h: Omit<DeltaHandler<I>, "kind">): DeltaHandler<I> => ({ kind: "delta", ...h });
