import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { curlCommand, heredocDelimiter, shellQuote } from "@/lib/console/curl";
import { originOf } from "@/lib/server/public-origin";

const dir = mkdtempSync(join(tmpdir(), "ledger-curl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the command in a real shell with `curl` replaced by a function that records its arguments and the
 * bytes it reads on stdin: what the real curl would send.
 */
function run(shell: string, command: string): { args: string[]; body: Buffer } {
  const [args, body] = [join(dir, "args"), join(dir, "body")];
  const fake = `curl() { cat > '${body}'; printf '%s\\0' "$@" > '${args}'; }\n`;
  execFileSync(shell, ["-c", fake + command], { stdio: ["ignore", "pipe", "pipe"] });
  return { args: readFileSync(args, "utf8").split("\0").slice(0, -1), body: readFileSync(body) };
}

const hostile = [
  `{"id":"evt_1","note":"it's \\"quoted\\" and 'single'",`,
  `"cost":"$HOME $(whoami) \${PATH} \`id\` \\\\n",`,
  "EOF",
  "'EOF'",
  "EOF_LEDGER_1",
  ` "tail":"naïve ☃ \t tab"}`,
].join("\n");

describe("copy as cURL", () => {
  it("[curl] single-quotes a word so nothing inside it is special, a single quote included", () => {
    expect(shellQuote("a'b $c `d`")).toBe(`'a'\\''b $c \`d\`'`);
    expect(execFileSync("sh", ["-c", `printf %s ${shellQuote("a'b $HOME `id` \\n\n")}`]).toString()).toBe(
      "a'b $HOME `id` \\n\n",
    );
  });

  it("[curl] picks a here-document delimiter the body does not contain", () => {
    expect(heredocDelimiter('{"a":1}')).toBe("EOF");
    expect(heredocDelimiter("x\nEOF\ny")).toBe("EOF_LEDGER_1");
    expect(heredocDelimiter("EOF EOF_LEDGER_1 EOF_LEDGER_2")).toBe("EOF_LEDGER_3");
  });

  it("[curl] sends the stored headers, signature included, without hop-by-hop ones, to the app's receiver", () => {
    const command = curlCommand({
      source: "stripe",
      baseUrl: "http://localhost:3000",
      rawBody: '{"id":"evt_1"}',
      headers: {
        host: "ledger.example.com",
        "content-length": "14",
        connection: "keep-alive",
        "transfer-encoding": "chunked",
        "stripe-signature": "t=1712917129,v1=abc",
        "content-type": "application/json; charset=utf-8",
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        "x-empty": "",
      },
    });
    expect(command.split("\n")[0]).toBe(
      `head -c 14 <<'EOF' | curl -X POST 'http://localhost:3000/api/webhooks/stripe' \\`,
    );
    const { args, body } = run("sh", command);
    expect(args).toEqual([
      "-X",
      "POST",
      "http://localhost:3000/api/webhooks/stripe",
      "-H",
      "content-type: application/json; charset=utf-8",
      "-H",
      "stripe-signature: t=1712917129,v1=abc",
      "-H",
      "user-agent: Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      "-H",
      "x-empty;",
      "--data-binary",
      "@-",
    ]);
    expect(body.toString("utf8")).toBe('{"id":"evt_1"}');
  });

  it.each(["sh", "bash"])(
    "[curl] %s receives a body with quotes, $, backticks, backslashes, newlines and the delimiter byte for byte",
    (shell) => {
      const command = curlCommand({
        source: "my source/x",
        rawBody: hostile,
        headers: { "x-note": "it's $HOME `id`" },
        baseUrl: "http://127.0.0.1:4000/",
      });
      expect(command).toContain("<<'EOF_LEDGER_2'");
      const { args, body } = run(shell, command);
      expect(args.slice(0, 5)).toEqual([
        "-X",
        "POST",
        "http://127.0.0.1:4000/api/webhooks/my%20source%2Fx",
        "-H",
        "x-note: it's $HOME `id`",
      ]);
      expect(body.equals(Buffer.from(hostile, "utf8"))).toBe(true);
    },
  );

  it("[curl] says its comment as shell comments above the command, which still runs", () => {
    const command = curlCommand({
      source: "stripe",
      baseUrl: "http://localhost:3000",
      rawBody: "{}",
      headers: {},
      comment: "line one $(id)\nline two",
    });
    expect(command.split("\n").slice(0, 3)).toEqual([
      "# line one $(id)",
      "# line two",
      "head -c 2 <<'EOF' | curl -X POST 'http://localhost:3000/api/webhooks/stripe' \\",
    ]);
    expect(run("sh", command).body.toString()).toBe("{}");
  });

  it("[curl] targets the app's own URL: APP_URL when set, else the request's origin, never a fixed localhost", () => {
    const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;
    const configured = originOf({ configured: "https://ledger.example.com/", header: headers({}), port: 3000 });
    expect(configured).toBe("https://ledger.example.com");
    expect(originOf({ configured: undefined, header: headers({ host: "10.0.0.5:8080" }), port: 3000 })).toBe(
      "http://10.0.0.5:8080",
    );
    expect(
      originOf({
        configured: undefined,
        header: headers({
          host: "internal:3000",
          "x-forwarded-host": "hooks.example.org",
          "x-forwarded-proto": "https, http",
        }),
        port: 3000,
      }),
    ).toBe("https://hooks.example.org");
    expect(originOf({ configured: undefined, header: headers({}), port: 4100 })).toBe("http://127.0.0.1:4100");
    const command = curlCommand({ source: "stripe", rawBody: "{}", headers: {}, baseUrl: configured });
    expect(command).toContain("curl -X POST 'https://ledger.example.com/api/webhooks/stripe'");
    expect(command).not.toContain("localhost");
  });

  it("[curl] keeps a body's own trailing newlines and CRLFs exactly", () => {
    for (const rawBody of ['{"a":1}\n', '{"a":1}\n\n', '{\r\n"a":1\r\n}', "", "\n"]) {
      const { body } = run(
        "sh",
        curlCommand({ source: "stripe", rawBody, headers: {}, baseUrl: "http://127.0.0.1:3000" }),
      );
      expect(body.toString("utf8")).toBe(rawBody);
    }
  });
});
