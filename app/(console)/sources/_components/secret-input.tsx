import type { ComponentProps } from "react";
import { Input } from "@/components/ui/input";

/** A signing secret pasted from the provider, or left blank for the server to generate one. */
export function SecretInput(props: ComponentProps<"input">) {
  return (
    <Input
      name="secret"
      autoComplete="off"
      spellCheck={false}
      placeholder="blank: generate one"
      className="font-mono"
      {...props}
    />
  );
}
