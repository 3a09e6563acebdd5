import type { ReactNode } from "react";
import { Label } from "./ui/input";

/** What a Field hands its control: the id its label names, and the lines that describe it. */
export interface FieldControl {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

/**
 * A labelled control with its hint under it, or its error in the hint's place; both outside the label, so
 * the control's name stays short. `name` marks the error line (data-field-error) with the form field it is for.
 */
export function Field({
  id,
  name,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  name?: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <Label htmlFor={id}>{label}</Label>
      {children({ id, ...(error ? { "aria-invalid": true } : {}), "aria-describedby": describedBy || undefined })}
      {error && (
        <p id={`${id}-error`} className="text-xs font-medium text-destructive" data-field-error={name}>
          {error}
        </p>
      )}
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}
