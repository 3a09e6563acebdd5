import type { Metadata } from "next";
import type { ReactNode } from "react";

export const metadata: Metadata = { title: "Webhook Ledger" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: 0 }}>{children}</body>
    </html>
  );
}
