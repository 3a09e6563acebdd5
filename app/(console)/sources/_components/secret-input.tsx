import type { ComponentProps } from "react";
import { Input } from "@/components/ui/input";
import type { SecretHint } from "@/lib/sources/secret-hints";

/** A signing secret pasted from the provider, or left blank for the server to generate one. */
export function SecretInput({ issuedBy, ...props }: ComponentProps<"input"> & { issuedBy?: SecretHint["issuedBy"] }) {
  return (
    <Input
      name="secret"
      autoComplete="off"
      spellCheck={false}
      placeholder={issuedBy === "provider" ? "paste the provider's secret" : "blank: generate one"}
      className="font-mono"
      {...props}
    />
  );
}
