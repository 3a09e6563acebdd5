/**
 * Slack Events API request bodies: the `event_callback` envelope around a `message` event (with its
 * rich_text blocks), the `url_verification` handshake, and `app_rate_limited` (which has no event_id).
 */

export interface SlackEventCallbackInput {
  eventId?: string;
  /** Unix seconds: the entity version. */
  eventTime?: number;
  teamId?: string;
  appId?: string;
  channel?: string;
  user?: string;
  text?: string;
  /** Overrides the inner event, e.g. `{ type: "reaction_added", item: {...} }`. */
  event?: Record<string, unknown>;
}

export function slackEventCallback(input: SlackEventCallbackInput = {}) {
  const teamId = input.teamId ?? "T061EG9R6";
  const eventTime = input.eventTime ?? 1712917129;
  const ts = `${eventTime}.000200`;
  const user = input.user ?? "U061F7AUR";
  const text = input.text ?? "Refund for order #1042 went through, closing the ticket.";
  return {
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: input.appId ?? "A0MDYCDME",
    event: input.event ?? {
      type: "message",
      channel: input.channel ?? "C2147483705",
      user,
      text,
      ts,
      event_ts: ts,
      channel_type: "channel",
      client_msg_id: "8b5b3f0a-6c1e-4f2b-9a4e-0d9f1c2b3a4d",
      team: teamId,
      blocks: [
        {
          type: "rich_text",
          block_id: "Xo1Qm",
          elements: [{ type: "rich_text_section", elements: [{ type: "text", text }] }],
        },
      ],
    },
    type: "event_callback",
    event_id: input.eventId ?? "Ev06U1RT7XQ9",
    event_time: eventTime,
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: "U0JD3BPNC", is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
    event_context: "4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMDYxRUc5UjYiLCJhaWQiOiJBME1EWUNETUUiLCJjaWQiOiJDMjE0NzQ4MzcwNSJ9",
  };
}

export function slackUrlVerification(input: { challenge?: string; token?: string } = {}) {
  return {
    token: input.token ?? "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    challenge: input.challenge ?? "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    type: "url_verification",
  };
}

export function slackAppRateLimited(input: { teamId?: string; minute?: number; appId?: string } = {}) {
  return {
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    type: "app_rate_limited",
    team_id: input.teamId ?? "T061EG9R6",
    minute_rate_limited: input.minute ?? 1712917080,
    api_app_id: input.appId ?? "A0MDYCDME",
  };
}
