/** Only same-site paths: `next=//evil.example` or `next=https://…` would be an open redirect. */
export function safeNext(value: string | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  return value;
}
