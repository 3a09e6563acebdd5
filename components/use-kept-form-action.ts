"use client";

import { useActionState, useTransition, type FormEvent } from "react";

/**
 * useActionState for a form that keeps what was typed: `submit` sends the form by hand (in a transition)
 * instead of through the form's action, which React follows by resetting the form, so after an error the
 * person sees their input, not an empty form. `dispatch` is for `action={…}`, the form without script.
 */
export function useKeptFormAction<State>(action: (prev: State | undefined, form: FormData) => Promise<State>) {
  const [state, dispatch, pending] = useActionState<State | undefined, FormData>(action, undefined);
  const [, startTransition] = useTransition();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => dispatch(data));
  };
  return { state, dispatch, pending, submit };
}
