import { Fragment } from "react";

/**
 * Long dotted identifiers ("customer.subscription.updated", "evt_1Ab…") wrap at their dots, underscores
 * and slashes instead of mid-word. Plain text: the parts are rendered as strings, never as markup.
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[._/:-])/);
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </>
  );
}
