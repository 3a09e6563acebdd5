import type { Metadata } from "next";
import { ThemeProvider } from "next-themes";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { StyleNonce } from "@/components/shell/nonce";
import "./globals.css";

// app/icon.svg and app/favicon.ico are Next's file conventions: it writes the <link rel="icon"> tags itself.
export const metadata: Metadata = { title: { default: "Webhook Ledger", template: "%s · Webhook Ledger" } };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // proxy.ts puts the request's CSP nonce here: next-themes' inline script must carry it.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <body>
        <StyleNonce nonce={nonce} />
        <ThemeProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
          {children}
        </ThemeProvider>
      </body>
    </html>
  );
}
