/**
 * The app's public origin: APP_URL when set (behind a proxy it is the truth), else the request's own, as a
 * proxy forwards it (the first value of a list) or as the Host header names it.
 */
export function originOf(input: {
  configured: string | undefined;
  header: (name: string) => string | null;
  port: number;
}): string {
  if (input.configured) return input.configured.replace(/\/+$/, "");
  const first = (value: string) => value.split(",")[0]!.trim();
  const host = input.header("x-forwarded-host") ?? input.header("host") ?? `127.0.0.1:${input.port}`;
  const proto = input.header("x-forwarded-proto") ?? "http";
  return `${first(proto)}://${first(host)}`;
}
