import { Alert } from "./ui/alert";

/** The outcome line under a form: an error as an alert, or a confirmation (none without `success`). */
export function FormMessage({
  state,
  success,
}: {
  state: { ok: true } | { ok: false; error: string } | undefined;
  success?: string;
}) {
  if (!state || (state.ok && success === undefined)) return null;
  return state.ok ? (
    <Alert tone="success" role="status">
      {success}
    </Alert>
  ) : (
    <Alert tone="danger" role="alert">
      {state.error}
    </Alert>
  );
}
