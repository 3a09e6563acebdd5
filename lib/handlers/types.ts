import type { Tx } from "@/db/client";
import type { ProviderKind } from "@/lib/providers/types";

/** What a handler sees of a leased ledger row. */
export interface HandlerEvent {
  /** The source's slug; the handler was chosen by the source's provider kind. */
  source: string;
  eventId: string;
  eventType: string;
  payload: unknown;
  /** The delivery's headers as stored (lower-case names): loaded only for a tie whose handler reads them. */
  headers?: Record<string, string>;
  /** A test event from the console (lib/providers/test-marker.ts): settles as ignored, no handler runs. */
  test?: boolean;
}

export type Changes = Record<string, { from: unknown; to: unknown }>;

export interface VersionedEntity {
  type: string;
  id: string;
  /** Strictly increasing per entity; equal or older is stale (docs/handlers.md). */
  version: number;
}

import type { InputErrorDetail } from "@/db/schema/worker";

export type { InputErrorDetail, InputProblem, PayloadPath } from "@/db/schema/worker";

/**
 * The payload does not have what the handler needs: the message says it for a person, `detail` for the console.
 * Permanent: no retry can add the field, so the event goes dead at once with this reason (a requeue after a fix,
 * say a new handler version, tries again).
 */
export class HandlerInputError extends Error {
  override name = "HandlerInputError";
  constructor(
    message: string,
    readonly detail: InputErrorDetail,
  ) {
    super(message);
  }
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
  /**
   * The business write, called only once the guard has decided this state is the newest (a strictly newer
   * version, or an equal one ordered by a tie's resolution): a write guarded by version must accept equal.
   */
  write(tx: Tx, state: State, ctx: { entity: VersionedEntity; event: HandlerEvent }): Promise<Changes>;
  /**
   * The same writes for a whole batch in one statement: `items` are every write the guard let through, by
   * entity and, within one, in the order they apply (several per entity when a batch holds a chain). Must
   * leave what calling `write` on each in turn leaves, and return each item's changes in the same order.
   */
  writeMany?(tx: Tx, items: readonly SnapshotWrite<State>[]): Promise<Changes[]>;
  /**
   * Chain evidence for ties (docs/handlers.md): the whole object as this event left it, and, where the
   * provider says, the values its changed fields had just before (Stripe's data.previous_attributes).
   */
  chain?(event: HandlerEvent): ChainEvidence | undefined;
  /**
   * A provider time finer than the version, for a tie the chain cannot order: the later one came later
   * (Shopify's X-Shopify-Triggered-At, to the nanosecond, beside an updated_at in seconds). `read` gets the
   * event with its headers; undefined when the event does not carry it.
   */
  finerTime?: { label: string; read(event: HandlerEvent): number | undefined };
  /** Where the provider's API has the object's current state, and how to read it: the last resort for a tie. */
  current?: {
    /** The API path for this entity, e.g. /v1/subscriptions/sub_123. */
    path(entity: { type: string; id: string }): string;
    state(body: unknown, entity: VersionedEntity): State;
  };
}

export interface SnapshotWrite<State> {
  state: State;
  entity: VersionedEntity;
  event: HandlerEvent;
}

export interface ChainEvidence {
  after: Record<string, unknown>;
  previous?: Record<string, unknown>;
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
