"use client";

import { useActionState, useEffect, useRef, useTransition, type FormEvent } from "react";

/**
 * useActionState for a form that keeps what was typed: `submit` sends the form by hand (in a transition)
 * instead of through the form's action, which React follows by resetting the form, so after an error the
 * person sees their input, not an empty form. `dispatch` is for `action={…}`, the form without script.
 * With `resetOnSuccess` the form is cleared once the action reports `ok` (a user added: the next one starts blank).
 */
export function useKeptFormAction<State>(
  action: (prev: State | undefined, form: FormData) => Promise<State>,
  options: { resetOnSuccess?: boolean } = {},
) {
  const [state, dispatch, pending] = useActionState<State | undefined, FormData>(action, undefined);
  const [, startTransition] = useTransition();
  const sent = useRef<HTMLFormElement | null>(null);
  const { resetOnSuccess = false } = options;
  useEffect(() => {
    const ok = typeof state === "object" && state !== null && "ok" in state && state.ok === true;
    if (resetOnSuccess && ok) sent.current?.reset();
  }, [state, resetOnSuccess]);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    sent.current = e.currentTarget;
    const data = new FormData(e.currentTarget);
    startTransition(() => dispatch(data));
  };
  return { state, dispatch, pending, submit };
}
